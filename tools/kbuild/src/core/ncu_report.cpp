#include "core/ncu_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <tuple>

namespace kb {

namespace {

// The fields of one CSV line ("" inside quotes is a quote), or nothing when
// the line is not well-formed CSV (an unclosed quote: a truncated file).
std::optional<std::vector<std::string>> SplitCsvLine(std::string_view line) {
  std::vector<std::string> fields(1);
  size_t i = 0;
  while (i <= line.size()) {
    std::string& field = fields.back();
    if (i < line.size() && line[i] == '"') {
      ++i;
      for (;;) {
        if (i >= line.size()) return std::nullopt;
        if (line[i] == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            field += '"';
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        field += line[i++];
      }
      if (i < line.size() && line[i] != ',') return std::nullopt;  // text after the closing quote
    } else {
      while (i < line.size() && line[i] != ',') field += line[i++];
    }
    if (i >= line.size()) break;
    ++i;  // the comma
    fields.emplace_back();
  }
  return fields;
}

// Where each column is; ncu's column set changes with the sections asked for,
// so columns are found by name.
struct Columns {
  size_t width = 0;
  int id = -1, process = -1, kernel = -1, block = -1, grid = -1, section = -1;
  int metric = -1, unit = -1, value = -1, rule = -1, rule_type = -1, rule_text = -1;
  size_t min_width = 0;  // ncu leaves the empty rule columns off metric rows
};

std::optional<Columns> ReadHeader(const std::vector<std::string>& fields) {
  if (fields.empty() || fields[0] != "ID") return std::nullopt;
  Columns c;
  c.width = fields.size();
  const std::tuple<const char*, int*> names[] = {
      {"ID", &c.id},
      {"Process ID", &c.process},
      {"Kernel Name", &c.kernel},
      {"Block Size", &c.block},
      {"Grid Size", &c.grid},
      {"Section Name", &c.section},
      {"Metric Name", &c.metric},
      {"Metric Unit", &c.unit},
      {"Metric Value", &c.value},
      {"Rule Name", &c.rule},
      {"Rule Type", &c.rule_type},
      {"Rule Description", &c.rule_text},
  };
  for (const auto& [name, index] : names) {
    const auto it = std::find(fields.begin(), fields.end(), name);
    if (it != fields.end()) *index = static_cast<int>(it - fields.begin());
  }
  if (c.kernel < 0 || c.metric < 0 || c.value < 0) return std::nullopt;
  for (const int index : {c.id, c.kernel, c.block, c.grid, c.metric, c.unit, c.value}) {
    c.min_width = std::max(c.min_width, static_cast<size_t>(index + 1));
  }
  return c;
}

std::string FieldAt(const std::vector<std::string>& fields, int index) {
  return index >= 0 && static_cast<size_t>(index) < fields.size() ? fields[index] : "";
}

constexpr std::string_view kCounterPermission = "ERR_NVGPUCTRPERM";

Error NoCsvError(std::string_view text, bool saw_header) {
  if (text.find(kCounterPermission) != std::string_view::npos) {
    return MakeError(
        ExitCode::kEnvironment,
        "ncu printed no CSV: GPU performance counters are not permitted (ERR_NVGPUCTRPERM)",
        "allow them for all users: put 'options nvidia NVreg_RestrictProfilingToAdminUsers=0' in "
        "a file under /etc/modprobe.d and reboot (or reload the nvidia module), or run ncu as "
        "root; a container needs --cap-add=SYS_ADMIN. See "
        "https://developer.nvidia.com/ERR_NVGPUCTRPERM");
  }
  return MakeError(
      ExitCode::kCheckFailed,
      saw_header ? "ncu printed a CSV header but no kernel rows" : "ncu printed no CSV",
      "was the kernel filtered out (--kernel-name, --launch-skip, --launch-count), "
      "or were counters not permitted? ERR_NVGPUCTRPERM in ncu's output says so");
}

}  // namespace

const NcuMetric* NcuKernel::Find(const std::string& metric_name,
                                 std::optional<std::string_view> unit) const {
  const auto [first, last] = metrics.equal_range(metric_name);
  for (auto it = first; it != last; ++it) {
    if (!unit || it->second.unit == *unit) return &it->second;
  }
  return nullptr;
}

std::optional<double> NcuKernel::Value(const std::string& metric_name,
                                       std::optional<std::string_view> unit) const {
  const NcuMetric* metric = Find(metric_name, unit);
  return metric ? metric->value : std::nullopt;
}

std::optional<double> ParseNcuNumber(std::string_view text) {
  std::string digits;
  for (const char ch : text) {
    if (ch != ',') digits += ch;
  }
  if (digits.empty()) return std::nullopt;
  double value = 0;
  const char* end = digits.data() + digits.size();
  const auto [ptr, ec] = std::from_chars(digits.data(), end, value);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

Expected<NcuReport> ParseNcuCsv(std::string_view text) {
  if (text.size() > kMaxNcuCsvBytes) {
    return MakeError(
        ExitCode::kUsage,
        fmt::format("ncu output is {} bytes; at most {} are read", text.size(), kMaxNcuCsvBytes),
        "profile fewer launches (--launch-count, --kernel-name)");
  }
  NcuReport report;
  std::optional<Columns> columns;
  std::map<std::pair<long, std::string>, NcuKernel> kernels;
  size_t rows = 0;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    if (++rows > kMaxNcuCsvRows) {
      return MakeError(ExitCode::kUsage,
                       fmt::format("ncu output has more than {} rows", kMaxNcuCsvRows),
                       "profile fewer launches (--launch-count, --kernel-name)");
    }
    const auto fields = SplitCsvLine(line);
    if (fields && !columns) columns = ReadHeader(*fields);
    if (fields && columns && (*fields)[0] == "ID") continue;  // the header (again, per process)
    const bool row = fields && columns && fields->size() >= columns->min_width &&
                     fields->size() <= columns->width;
    const auto id = row ? ParseNcuNumber(FieldAt(*fields, columns->id)) : std::nullopt;
    if (!id) {
      ++report.skipped_lines;
      continue;
    }
    const auto key = std::make_pair(static_cast<long>(*id), FieldAt(*fields, columns->process));
    NcuKernel& kernel = kernels[key];
    if (kernel.name.empty()) {
      kernel.id = key.first;
      kernel.process_id = key.second;
      kernel.name = FieldAt(*fields, columns->kernel);
      kernel.block = FieldAt(*fields, columns->block);
      kernel.grid = FieldAt(*fields, columns->grid);
    }
    const std::string metric = FieldAt(*fields, columns->metric);
    if (!metric.empty()) {
      const std::string value = FieldAt(*fields, columns->value);
      NcuMetric row{FieldAt(*fields, columns->unit), ParseNcuNumber(value), value,
                    FieldAt(*fields, columns->section)};
      // A name repeated in the same section replaces the row; in another, both are kept.
      auto [it, last] = kernel.metrics.equal_range(metric);
      while (it != last && it->second.section != row.section) ++it;
      if (it != last) {
        it->second = std::move(row);
      } else {
        kernel.metrics.emplace(metric, std::move(row));
      }
    } else if (const std::string rule = FieldAt(*fields, columns->rule); !rule.empty()) {
      kernel.rules.push_back({FieldAt(*fields, columns->section), rule,
                              FieldAt(*fields, columns->rule_type),
                              FieldAt(*fields, columns->rule_text)});
    }
  }
  if (kernels.empty()) return NoCsvError(text, columns.has_value());
  for (auto& [key, kernel] : kernels) report.kernels.push_back(std::move(kernel));
  return report;
}

}  // namespace kb
