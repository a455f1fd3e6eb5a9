// Plain-text tables for the terminal: left-aligned columns, two spaces
// apart, a dashed rule under the header. Cells are UTF-8; width counts code
// points so "±" or "µ" do not skew the columns.
#pragma once

#include <string>
#include <vector>

namespace kb {

using TableRow = std::vector<std::string>;

std::string RenderTable(const TableRow& header, const std::vector<TableRow>& rows);

}  // namespace kb
