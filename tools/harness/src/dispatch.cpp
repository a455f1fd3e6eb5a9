#include "kbuild/harness/dispatch.h"

#include "kbuild/harness/launch_record.h"

namespace kb::harness {

std::optional<OpHandle> OpHandle::Find(const std::string& qualified_name, std::string* error) {
  const auto separator = qualified_name.find("::");
  if (separator == std::string::npos) {
    *error = "op '" + qualified_name +
             "' has no namespace\nhint: write '<namespace>::" + qualified_name +
             "' or use kb::harness::ProjectOp(\"" + qualified_name +
             "\") in a target compiled with TORCH_EXTENSION_NAME";
    return std::nullopt;
  }
  auto handle = c10::Dispatcher::singleton().findSchema(
      {qualified_name.substr(0, separator) + "::" + qualified_name.substr(separator + 2), ""});
  if (!handle) {
    *error = "op '" + qualified_name +
             "' is not registered with the dispatcher\nhint: check the name against "
             "TORCH_LIBRARY's ops.def(...), and that the project's library is linked with "
             "-Wl,--no-as-needed (its registration runs only when it is loaded)";
    return std::nullopt;
  }
  return OpHandle(*handle);
}

std::vector<c10::IValue> OpHandle::Call(const Args& args) const {
  torch::jit::Stack stack(args.begin(), args.end());
  OpCallScope scope;  // a LaunchRecorder counts the launches of this span as the op's
  handle_.callBoxed(&stack);
  return stack;
}

std::string OpHandle::name() const { return handle_.operator_name().name; }

std::string OpHandle::ArgName(std::size_t i) const {
  const auto& arguments = handle_.schema().arguments();
  if (i < arguments.size()) return "'" + arguments[i].name() + "'";
  return "arg " + std::to_string(i);
}

}  // namespace kb::harness
