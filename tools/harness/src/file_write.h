// The harness writes its JSON into the user's build/ folder, where anything may
// already sit: a document replaces its file through an exclusively created temp
// file (a planted symlink is replaced, never written through), a JSON line is
// appended to a file that must not be a symlink. Errors are text for the
// harness's "kbuild harness: ..." lines: "<file>: <what>\nhint: <how>".
#pragma once

#include <string>
#include <string_view>

namespace kb::harness {

// Writes `data` to a random, O_EXCL|O_NOFOLLOW temp file beside `path` (mode
// 0644 less umask), fsyncs it and renames it over `path`: readers see the old
// document or the whole new one. The folder must exist.
bool ReplaceFile(const std::string& path, std::string_view data, std::string* error);

// Appends `data` with one O_APPEND write sequence (created 0644 less umask),
// refusing a symlink at `path`.
bool AppendToFile(const std::string& path, std::string_view data, std::string* error);

}  // namespace kb::harness
