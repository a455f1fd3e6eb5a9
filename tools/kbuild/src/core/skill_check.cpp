#include "core/skill_check.h"

#include <algorithm>
#include <cctype>
#include <regex>
#include <set>
#include <sstream>

#include "core/sha256.h"
#include "core/skill_install.h"

namespace kb {

namespace fs = std::filesystem;

namespace {

Error Finding(const SourceText& source, int line, int column,
              std::string message, std::string hint) {
  return source.ErrorAt(ExitCode::kCheckFailed, {line, column},
                        std::move(message), std::move(hint));
}

// Shell-like word splitting: quotes group, backslash escapes.
std::vector<std::string> SplitWords(const std::string& text) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  char quote = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quote) {
      if (c == quote)
        quote = 0;
      else
        word += c;
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == '\\' && i + 1 < text.size()) {
      word += text[++i];
      in_word = true;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      if (in_word) words.push_back(word);
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) words.push_back(word);
  return words;
}

// The arguments after `kbuild` in one shell command (env assignments before it
// and redirections after it dropped); nothing when it is not a kbuild command.
std::optional<std::vector<std::string>> KbuildArgs(const std::string& command) {
  auto words = SplitWords(command);
  size_t i = 0;
  while (i < words.size() && words[i].find('=') != std::string::npos &&
         words[i][0] != '-')
    ++i;
  if (i >= words.size()) return std::nullopt;
  const std::string& program = words[i];
  if (program != "kbuild" && !program.ends_with("/kbuild")) return std::nullopt;
  std::vector<std::string> args;
  for (++i; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (w[0] == '>' || w[0] == '<' || w.starts_with("2>") ||
        w.starts_with("&>"))
      break;
    args.push_back(w);
  }
  return args;
}

bool IsShellLanguage(const std::string& language) {
  static const std::set<std::string> kShells = {"bash", "sh", "shell",
                                                "console", "zsh"};
  return kShells.count(language) > 0;
}

// Splits a shell line at && || ; and | (outside quotes).
std::vector<std::pair<std::string, size_t>> SplitCommands(
    const std::string& line) {
  std::vector<std::pair<std::string, size_t>> parts;
  size_t start = 0;
  char quote = 0;
  for (size_t i = 0; i <= line.size(); ++i) {
    char c = i < line.size() ? line[i] : ';';
    if (quote) {
      if (c == quote) quote = 0;
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == ';' || c == '|' ||
               (c == '&' && i + 1 < line.size() && line[i + 1] == '&')) {
      parts.emplace_back(line.substr(start, i - start), start);
      if (i + 1 < line.size() && (line[i + 1] == '&' || line[i + 1] == '|'))
        ++i;
      start = i + 1;
    }
  }
  return parts;
}

std::string FirstLines(const std::string& text, int max_lines) {
  std::istringstream in(text);
  std::string line, out;
  for (int n = 0; n < max_lines && std::getline(in, line); ++n)
    out += line + "\n";
  return out;
}

}  // namespace

std::vector<Error> CheckSkillFrontmatter(const Frontmatter& fm,
                                         const SourceText& path,
                                         const std::string& folder_name) {
  std::vector<Error> problems;
  const FrontmatterField* name = fm.Find("name");
  const FrontmatterField* description = fm.Find("description");
  for (const char* key : {"name", "description"}) {
    if (!fm.Find(key)) {
      problems.push_back(Finding(
          path, 1, 1, std::string("frontmatter has no '") + key + "'",
          std::string("add a '") + key + ": ...' line to the frontmatter"));
    }
  }
  if (name) {
    static const std::regex kNameRule("[a-z0-9]+(-[a-z0-9]+)*");
    if (name->value.size() > kSkillNameMaxLength ||
        !std::regex_match(name->value, kNameRule)) {
      problems.push_back(Finding(
          path, name->line, 1, "invalid skill name '" + name->value + "'",
          "use at most 64 lowercase letters, digits and single hyphens, "
          "e.g. 'cuda-kernels'"));
    } else if (!folder_name.empty() && name->value != folder_name) {
      problems.push_back(Finding(
          path, name->line, 1,
          "skill name '" + name->value + "' differs from its folder '" +
              folder_name + "'",
          "agents find a skill by its folder: use the same name for both"));
    }
  }
  if (description) {
    if (description->value.empty()) {
      problems.push_back(
          Finding(path, description->line, 1, "the description is empty",
                  "say what the skill does and when an agent should use it"));
    } else if (description->value.size() > kSkillDescriptionMaxLength) {
      problems.push_back(Finding(path, description->line, 1,
                                 "the description is " +
                                     std::to_string(description->value.size()) +
                                     " characters long; the limit is " +
                                     std::to_string(kSkillDescriptionMaxLength),
                                 "shorten it: the description only has to tell "
                                 "an agent when to load the skill"));
    } else if (description->value.find_first_of("<>") != std::string::npos) {
      problems.push_back(Finding(
          path, description->line, 1, "the description contains '<' or '>'",
          "agents reject angle brackets in descriptions: reword it"));
    }
  }
  return problems;
}

std::vector<Error> CheckLinks(const MarkdownDocument& doc, const fs::path& file,
                              const std::vector<fs::path>& pack_files,
                              const SourceText& path) {
  std::set<std::string> known;
  for (const auto& f : pack_files) {
    for (fs::path p = f.lexically_normal(); !p.empty(); p = p.parent_path()) {
      if (!known.insert(p.generic_string()).second) break;
    }
  }
  std::vector<Error> problems;
  for (const auto& link : doc.links) {
    if (IsExternalOrAnchorLink(link.target)) continue;
    std::string target = link.target.substr(0, link.target.find_first_of("#?"));
    fs::path resolved = (file.parent_path() / target).lexically_normal();
    std::string key = resolved.generic_string();
    if (!key.empty() && key.back() == '/') key.pop_back();
    if (key == ".." || key.starts_with("../")) {
      problems.push_back(Finding(
          path, link.line, link.column,
          "link '" + link.target + "' points outside the skill pack",
          "the pack holds SKILL.md, references/ and templates/; link to a "
          "file inside it or use a full https:// URL"));
    } else if (!known.count(key) && key != ".") {
      problems.push_back(
          Finding(path, link.line, link.column,
                  "broken link '" + link.target + "': no such file in the pack",
                  "paths are relative to this file as installed (SKILL.md sits "
                  "beside references/ and templates/)"));
    }
  }
  return problems;
}

std::vector<KbuildCommandLine> FindKbuildCommandLines(
    const MarkdownDocument& doc) {
  std::vector<KbuildCommandLine> found;
  auto add = [&found](const std::string& command, int line, int column) {
    auto args = KbuildArgs(command);
    // `kbuild` alone names the tool; `kbuild <command> ...` is a pattern, not a
    // command.
    if (args && !args->empty() && !(*args)[0].starts_with("<")) {
      std::string text = command;
      text.erase(0, text.find_first_not_of(' '));
      found.push_back({*args, text, line, column});
    }
  };
  for (const auto& block : doc.blocks) {
    if (!IsShellLanguage(block.language)) continue;
    std::istringstream in(block.code);
    std::string line, joined;
    int line_no = block.line, joined_start = 0;
    while (std::getline(in, line)) {
      ++line_no;
      if (joined.empty()) joined_start = line_no;
      if (!line.empty() && line.back() == '\\') {  // continued on the next line
        joined += line.substr(0, line.size() - 1) + " ";
        continue;
      }
      joined += line;
      std::string text = joined;
      joined.clear();
      size_t indent = text.find_first_not_of(' ');
      if (indent == std::string::npos || text[indent] == '#') continue;
      if (text.compare(indent, 2, "$ ") == 0)
        text[indent] = ' ';  // console prompt
      for (const auto& [command, offset] : SplitCommands(text)) {
        size_t col = command.find_first_not_of(' ');
        add(command, joined_start,
            static_cast<int>(offset + (col == std::string::npos ? 0 : col)) +
                1);
      }
    }
  }
  for (const auto& code : doc.inline_code) {
    if (code.text == "kbuild" || code.text.starts_with("kbuild "))
      add(code.text, code.line, code.column);
  }
  return found;
}

bool IsCompiledLanguage(const std::string& language) {
  static const std::set<std::string> kCompiled = {"cpp", "c++", "cxx", "cuda",
                                                  "cu"};
  return kCompiled.count(language) > 0;
}

bool NeedsTorch(const std::string& code) {
  static const std::regex kTorchInclude(
      R"(#\s*include\s*[<"](torch|ATen|c10)/)");
  return std::regex_search(code, kTorchInclude);
}

std::optional<Error> CompileCodeBlock(FileSystem& fs, ProcessRunner& runner,
                                      const CodeCompileSetup& setup,
                                      const CodeBlock& block,
                                      const SourceText& path) {
  const bool cuda = block.language == "cuda" || block.language == "cu";
  const bool torch = NeedsTorch(block.code);
  if (torch && !setup.torch_dir) {
    Error e = Finding(path, block.line, 1,
                      "cannot compile this block: torch was not found",
                      setup.torch_missing_reason);
    e.code = ExitCode::kEnvironment;
    return e;
  }
  const std::string digest = Sha256Hex(block.code).substr(0, 16);
  const fs::path source =
      setup.work_dir / ("block-" + digest + (cuda ? ".cu" : ".cpp"));
  std::vector<std::string> argv;
  if (cuda) {
    argv = {setup.nvcc.string(),
            "-std=c++17",
            "-gencode=arch=compute_90a,code=sm_90a",
            "-c",
            source.string(),
            "-o",
            (setup.work_dir / ("block-" + digest + ".o")).string()};
  } else {
    argv = {setup.cxx.string(), "-std=c++17", "-fsyntax-only",
            "-I" + setup.cuda_include.string(), source.string()};
  }
  if (!setup.library_include.empty()) {
    argv.push_back("-I" + setup.library_include.string());
  }
  if (torch) {
    argv.push_back("-I" + (*setup.torch_dir / "include").string());
    argv.push_back(
        "-I" + (*setup.torch_dir / "include/torch/csrc/api/include").string());
  }
  // Blocks that compiled once with the same command need no second compile.
  std::string key = setup.library_digest + "\n";
  for (const auto& a : argv) key += a + "\n";
  const fs::path stamp = setup.cache_dir.empty()
                             ? fs::path()
                             : setup.cache_dir / Sha256Hex(key + block.code);
  if (!stamp.empty() && fs.Exists(stamp)) return std::nullopt;

  if (auto s = fs.Write(source, block.code); !s) return s.error();
  RunOptions run;
  run.timeout_seconds = 300;
  ProcessResult result = runner.Run(argv, run);
  if (result.exit_code == 0 && !result.timed_out) {
    if (!stamp.empty()) (void)fs.Write(stamp, "ok\n");
    return std::nullopt;
  }
  if (result.not_found) {
    Error e = Finding(
        path, block.line, 1,
        "cannot compile this block: '" + argv[0] + "' not found",
        "install the CUDA Toolkit and a C++ compiler, or set CUDA_HOME");
    e.code = ExitCode::kEnvironment;
    return e;
  }
  // "block.cu(12): error: ..." (nvcc) or "block.cpp:12:5: error: ..." (g++).
  static const std::regex kFirstError(
      R"(block-[0-9a-f]+\.(?:cu|cpp)(?:\((\d+)\)|:(\d+):\d+):\s*(?:fatal )?error:?\s*(.*))");
  std::smatch m;
  int line = block.line, column = 1;
  std::string what =
      result.timed_out ? "the compiler timed out" : "the compiler failed";
  if (std::regex_search(result.output, m, kFirstError)) {
    line = block.line + std::stoi(m[1].matched ? m[1].str() : m[2].str());
    what = m[3].str();
  }
  Error e = Finding(path, line, column, "code block does not compile: " + what,
                    "fix the code, or mark it as a fragment with '<!-- "
                    "fragment -->' on the line "
                    "before the fence");
  e.detail = FirstLines(result.output, 8);
  return e;
}

Status StageKernelLibrary(FileSystem& fs, const fs::path& home,
                          CodeCompileSetup& setup) {
  const fs::path library = home / "templates" / "library";
  if (!fs.IsDirectory(library)) return {};
  const fs::path include = setup.work_dir / "include";
  std::string contents;
  for (const fs::path& relative : fs.ListFilesRecursive(library)) {
    const std::string ext = relative.extension().string();
    if (relative.has_parent_path() || (ext != ".h" && ext != ".cuh")) continue;
    auto text = fs.ReadAtMost(library / relative, kMaxConfigBytes);
    if (!text) return text.error();
    if (auto s = fs.Write(include / "common" / relative, *text); !s) return s;
    contents += relative.generic_string() + "\n" + Sha256Hex(*text) + "\n";
  }
  setup.library_include = include;
  setup.library_digest = Sha256Hex(contents);
  return {};
}

Expected<SkillCheckResult> CheckSkillPack(
    FileSystem& fs, ProcessRunner& runner, const SkillCheckOptions& options,
    const CommandLineValidator& validate) {
  auto pack = ListSkillPack(fs, options.home);
  if (!pack) return pack.error();
  CodeCompileSetup setup = options.compile_setup;
  if (options.compile) {
    if (Status staged = StageKernelLibrary(fs, options.home, setup); !staged) {
      return staged.error();
    }
  }
  std::vector<fs::path> pack_files;
  for (const auto& f : *pack) pack_files.push_back(f.relative);

  SkillCheckResult result;
  for (const auto& file : *pack) {
    const std::string top = file.relative.begin()->string();
    const bool checked =
        file.relative.extension() == ".md" &&
        (file.relative.has_parent_path() ? top == "references" : true);
    if (!checked) continue;
    const std::string display =
        fs::relative(file.source, options.home).generic_string();
    result.files.push_back(display);
    auto text = fs.Read(file.source);
    if (!text) return text.error();
    const MarkdownDocument doc = ParseMarkdown(*text);
    const SourceText source(display, *text);

    if (file.relative == "SKILL.md") {
      auto fm = ParseFrontmatter(*text, display);
      if (!fm) {
        Error e = fm.error();
        e.code = ExitCode::kCheckFailed;
        result.problems.push_back(e);
      } else {
        for (auto& p : CheckSkillFrontmatter(*fm, source, kSkillName))
          result.problems.push_back(p);
        std::istringstream body(
            text->substr(std::min(text->size(), text->find("\n---", 3) + 4)));
        std::string word;
        while (body >> word) ++result.skill_words;
        if (result.skill_words > kSkillBodyWordBudget) {
          result.warnings.push_back(display + ": " +
                                    std::to_string(result.skill_words) +
                                    " words; keep SKILL.md under about " +
                                    std::to_string(kSkillBodyWordBudget) +
                                    " and move detail into references/");
        }
      }
    }

    result.links += static_cast<int>(doc.links.size());
    for (auto& p : CheckLinks(doc, file.relative, pack_files, source))
      result.problems.push_back(p);

    for (const auto& block : doc.blocks) {
      if (!IsCompiledLanguage(block.language)) continue;
      ++result.code_blocks;
      if (block.fragment) {
        ++result.fragments;
        continue;
      }
      if (!options.compile) continue;
      if (auto problem = CompileCodeBlock(fs, runner, setup, block, source)) {
        result.problems.push_back(*problem);
      } else {
        ++result.compiled;
      }
    }

    for (const auto& command : FindKbuildCommandLines(doc)) {
      ++result.command_lines;
      if (auto message = validate(command.args)) {
        result.problems.push_back(
            Finding(source, command.line, command.column,
                    "'" + command.text + "' does not parse: " + *message,
                    "show commands exactly as 'kbuild <command> --help' "
                    "describes them"));
      }
    }
  }
  return result;
}

}  // namespace kb
