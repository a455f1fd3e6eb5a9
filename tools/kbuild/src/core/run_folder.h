// The run folders of commands that record attempts and can resume:
// <project>/results/<command>-<stamp> (kbuild tune: "tune", kbuild optimize:
// "optimize"), each holding its history.jsonl.
#pragma once

#include <filesystem>
#include <string>

#include "core/error.h"
#include "core/fs.h"

namespace kb {

// <project>/results, where bench, tune and optimize write: missing or a real
// folder. A link planted there would take every file written below it
// elsewhere. Exit 2 otherwise, naming it.
Status CheckResultsFolder(const FileSystem& fs, const std::filesystem::path& results);

// A new run folder <project>/results/<command>-<stamp> (with "-2", "-3", ...
// when taken); not created yet. Exit 2 when results/ is a symlink or a file.
Expected<std::filesystem::path> NewRunFolder(const FileSystem& fs,
                                             const std::filesystem::path& project,
                                             const std::string& command, const std::string& stamp);

// Why kbuild may not write the tree of one attempt or variant at run/relative
// (attempts/<id>, variants/<id>) for a queue worker, whose run folder no
// --resume check has read: a link on the way from `run`, something other
// than a folder there, or a link (or FIFO, ...) inside it. Empty when it is
// missing or a real folder of folders and regular files.
std::string RunSubfolderProblem(const FileSystem& fs, const std::filesystem::path& run,
                                const std::filesystem::path& relative);

// The folder --resume names (relative paths are relative to the project),
// checked: a directory <project>/results/<command>-*, neither it nor results/
// a symlink, holding a regular `history` and nothing below it but folders and
// regular files (no symlink, FIFO, ...). Exit 2 otherwise, saying which.
Expected<std::filesystem::path> ResumeRunFolder(const FileSystem& fs,
                                                const std::filesystem::path& project,
                                                const std::filesystem::path& given,
                                                const std::string& command,
                                                const std::string& history);

}  // namespace kb
