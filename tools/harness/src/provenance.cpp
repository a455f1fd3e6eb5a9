#include "kbuild/harness/provenance.h"

#include <cxxabi.h>
#include <dlfcn.h>
#include <link.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>

namespace kb::harness {

namespace {

std::string BaseName(std::string_view path) {
  const auto slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

// "void ns::f<int>(float*, int)" -> "ns::f<int>": drops the parameter list
// and the return type that templates carry.
std::string WithoutSignature(std::string name) {
  if (name.ends_with(")")) {
    int depth = 0;
    for (std::size_t i = name.size(); i-- > 0;) {
      if (name[i] == ')') ++depth;
      if (name[i] == '(' && --depth == 0) {
        name.resize(i);
        break;
      }
    }
  }
  if (name.starts_with("void ")) name.erase(0, 5);
  return name;
}

}  // namespace

bool IsCudaPlumbing(const std::string& object) {
  const std::string name = BaseName(object);
  for (const char* prefix : {"libcupti.", "libcuda.", "libcudart."}) {
    if (name.starts_with(prefix)) return true;
  }
  return false;
}

std::string ShortKernelName(std::string_view mangled) {
  std::string name(mangled);
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> demangled(
      abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), &std::free);
  if (status == 0 && demangled) name = WithoutSignature(demangled.get());
  if (name.size() <= kMaxKernelNameChars) return name;
  // Keep the namespace and name (front) and the last template arguments (back).
  const std::size_t keep = kMaxKernelNameChars - 3;
  return name.substr(0, keep - keep / 3) + "..." + name.substr(name.size() - keep / 3);
}

std::string ObjectOf(const void* address) {
  Dl_info info{};
  if (address == nullptr || dladdr(address, &info) == 0 || info.dli_fname == nullptr) return "";
  return info.dli_fname;
}

std::string LaunchingObject(const std::vector<std::string>& frame_objects) {
  bool in_plumbing = false;
  for (const std::string& object : frame_objects) {
    if (IsCudaPlumbing(object)) {
      in_plumbing = true;
    } else if (in_plumbing && !object.empty()) {
      return object;
    }
  }
  return "";
}

bool SameFile(const std::string& a, const std::string& b) {
  std::error_code ea, eb;
  const auto ra = std::filesystem::canonical(a, ea);
  const auto rb = std::filesystem::canonical(b, eb);
  return !ea && !eb && ra == rb;
}

std::string LoadedObjectContaining(std::string_view name_part) {
  struct Search {
    std::string_view part;
    std::string found;
  } search{name_part, ""};
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* data) {
        auto* s = static_cast<Search*>(data);
        if (info->dlpi_name && BaseName(info->dlpi_name).find(s->part) != std::string::npos) {
          s->found = info->dlpi_name;
          return 1;
        }
        return 0;
      },
      &search);
  return search.found;
}

std::string ProvenanceProblem(const Provenance& p, bool wraps_library) {
  if (!p.recorded() || wraps_library || p.project_launches > 0) return "";
  const std::string declare =
      "; if the op wraps a library or launches nothing on purpose, set wraps_library in the spec";
  if (p.launches == 0) {
    return "the op launched no kernel at all\nhint: the binding must call the project's "
           "launcher" +
           declare;
  }
  // Group the names by library, at most three names each.
  std::map<std::string, std::vector<std::string>> by_library;
  for (const ForeignKernel& k : p.foreign_kernels) by_library[k.library].push_back(k.name);
  std::string text = "no kernel of the project ran: launched " + std::to_string(p.launches) +
                     (p.launches == 1 ? " kernel" : " kernels");
  for (const auto& [library, names] : by_library) {
    text += ", from " + (library.empty() ? std::string("an unknown library") : library) + ": ";
    for (std::size_t i = 0; i < names.size() && i < 3; ++i) text += (i ? ", " : "") + names[i];
    if (names.size() > 3) text += " and " + std::to_string(names.size() - 3) + " more";
  }
  return text + "\nhint: the binding must call the project's launcher" + declare;
}

std::string LaunchesCell(const Provenance& p) {
  if (!p.recorded()) return "-";
  const int foreign = p.launches - p.project_launches;
  std::string cell = std::to_string(p.launches);
  if (foreign > 0) cell += " (" + std::to_string(foreign) + " foreign)";
  return cell;
}

void AddProvenanceJson(nlohmann::json& record, const Provenance& p) {
  nlohmann::json foreign = nlohmann::json::array();
  for (const ForeignKernel& k : p.foreign_kernels)
    foreign.push_back({{"name", k.name}, {"library", k.library}});
  record["launches"] = p.recorded() ? nlohmann::json(p.launches) : nlohmann::json(nullptr);
  record["project_launches"] = p.project_launches;
  record["foreign_kernels"] = foreign;
  record["provenance_note"] = p.note;
}

Provenance ProvenanceFromJson(const nlohmann::json& record) {
  Provenance p;
  if (!record.is_object()) return p;
  if (auto it = record.find("launches"); it != record.end() && it->is_number_integer())
    p.launches = it->get<int>();
  if (auto it = record.find("project_launches"); it != record.end() && it->is_number_integer())
    p.project_launches = it->get<int>();
  if (auto it = record.find("foreign_kernels"); it != record.end() && it->is_array()) {
    for (const nlohmann::json& k : *it) {
      if (k.is_object()) p.foreign_kernels.push_back({k.value("name", ""), k.value("library", "")});
    }
  }
  if (auto it = record.find("provenance_note"); it != record.end() && it->is_string())
    p.note = it->get<std::string>();
  return p;
}

}  // namespace kb::harness
