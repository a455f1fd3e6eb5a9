// Just enough Markdown for `kbuild skill check`: fenced code blocks (with the
// `<!-- fragment -->` marker), inline code spans and link targets, each with
// the 1-based line and column where it starts, so findings point at the text.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kb {

struct CodeBlock {
  std::string language;  // first word of the info string, lowercased ("cuda",
                         // "bash", "")
  std::string code;      // the lines between the fences, each ending in '\n'
  int line = 0;  // line of the opening fence; code line i is at line + i
  bool fragment =
      false;  // `<!-- fragment -->` stands on the line before the fence
};

struct InlineCode {
  std::string text;
  int line = 0;
  int column = 0;
};

struct MarkdownLink {
  std::string target;  // as written: "references/x.md#part", "https://..."
  int line = 0;
  int column = 0;  // of the target's first character
};

struct MarkdownDocument {
  std::vector<CodeBlock> blocks;
  std::vector<InlineCode> inline_code;  // outside fenced blocks
  std::vector<MarkdownLink>
      links;  // [text](target), ![alt](target), [label]: target
};

// Never fails: text that is not a construct above is ignored. An unclosed
// fence runs to the end of the text, as CommonMark says.
MarkdownDocument ParseMarkdown(std::string_view text);

// True for links that leave the pack: "https://...", "mailto:...", "#anchor".
bool IsExternalOrAnchorLink(std::string_view target);

}  // namespace kb
