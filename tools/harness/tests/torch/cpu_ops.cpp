#include "cpu_ops.h"

#include <torch/library.h>

#include <limits>
#include <map>

namespace kb::harness::testing {

at::Tensor RmsNormReference(const at::Tensor& x, const at::Tensor& w, double eps) {
  return x * at::rsqrt(x.pow(2).mean(-1, /*keepdim=*/true) + eps) * w;
}

namespace {

// Computes in fp32 like a real kernel, rounds to the output dtype.
at::Tensor RmsNormFp32(const at::Tensor& x, const at::Tensor& w, double eps) {
  return RmsNormReference(x.to(at::kFloat), w.to(at::kFloat), eps);
}

void RmsNorm(at::Tensor& out, const at::Tensor& x, const at::Tensor& w, double eps) {
  TORCH_CHECK(x.is_contiguous(), "rms_norm: x must be contiguous");
  out.copy_(RmsNormFp32(x, w, eps));
}

void AcceptsAnyLayout(at::Tensor& out, const at::Tensor& x, const at::Tensor& w, double eps) {
  out.copy_(RmsNormFp32(x, w, eps));
}

void SkipsLastElement(at::Tensor& out, const at::Tensor& x, const at::Tensor& w, double eps) {
  at::Tensor r = RmsNormFp32(x, w, eps).to(out.scalar_type()).flatten();
  out.view(-1).narrow(0, 0, out.numel() - 1).copy_(r.narrow(0, 0, out.numel() - 1));
}

void ProducesNaN(at::Tensor& out, const at::Tensor& x, const at::Tensor& w, double eps) {
  out.copy_(RmsNormFp32(x, w, eps));
  out.view(-1)[out.numel() / 2] = std::numeric_limits<double>::quiet_NaN();
}

void WritesInput(at::Tensor& out, const at::Tensor& x, const at::Tensor& w, double eps) {
  out.copy_(RmsNormFp32(x, w, eps));
  const_cast<at::Tensor&>(x).mul_(0.5);
}

// Keeps the first result per shape and returns it forever after.
void ReturnsCachedOutput(at::Tensor& out, const at::Tensor& x, const at::Tensor& w, double eps) {
  static std::map<std::vector<int64_t>, at::Tensor> cache;
  auto [it, fresh] = cache.try_emplace(x.sizes().vec());
  if (fresh) it->second = RmsNormFp32(x, w, eps);
  out.copy_(it->second);
}

// Stores one element past the end of `out`.
void WritesPastEnd(at::Tensor& out, const at::Tensor& x, const at::Tensor& w, double eps) {
  out.copy_(RmsNormFp32(x, w, eps));
  at::Tensor past = out.as_strided({1}, {1}, out.storage_offset() + out.numel());
  past.fill_(0);
}

// Reads one element past the end of `x` into the last row's sum of squares.
void ReadsPastEnd(at::Tensor& out, const at::Tensor& x, const at::Tensor& w, double eps) {
  const int64_t hidden = x.size(-1);
  at::Tensor wide = x.as_strided({x.numel() / hidden, hidden + 1}, {hidden, 1}, x.storage_offset());
  at::Tensor ms = wide.to(at::kFloat).pow(2).sum(-1, true) / hidden;
  out.copy_(x.to(at::kFloat) * at::rsqrt(ms + eps) * w.to(at::kFloat));
}

// rsqrt(mean(x^2)) without eps: right unless the inputs are tiny.
void IgnoresEps(at::Tensor& out, const at::Tensor& x, const at::Tensor& w, double) {
  out.copy_(RmsNormFp32(x, w, 0.0));
}

at::Tensor RmsNormReturning(const at::Tensor& x, const at::Tensor& w, double eps) {
  return RmsNormFp32(x, w, eps).to(x.scalar_type());
}

void AddInPlace(at::Tensor& residual, const at::Tensor& x) { residual.add_(x); }

}  // namespace

TORCH_LIBRARY(kbh_test, m) {
  for (const char* name : {"rms_norm", "any_layout", "skips_last", "nan", "writes_input", "cached",
                           "writes_past_end", "reads_past_end", "ignores_eps"}) {
    m.def((std::string(name) + "(Tensor(a!) out, Tensor x, Tensor w, float eps) -> ()").c_str());
  }
  m.def("rms_norm_returning(Tensor x, Tensor w, float eps) -> Tensor");
  m.def("add_in_place(Tensor(a!) residual, Tensor x) -> ()");
}

TORCH_LIBRARY_IMPL(kbh_test, CPU, m) {
  m.impl("rms_norm", &RmsNorm);
  m.impl("any_layout", &AcceptsAnyLayout);
  m.impl("skips_last", &SkipsLastElement);
  m.impl("nan", &ProducesNaN);
  m.impl("writes_input", &WritesInput);
  m.impl("cached", &ReturnsCachedOutput);
  m.impl("writes_past_end", &WritesPastEnd);
  m.impl("reads_past_end", &ReadsPastEnd);
  m.impl("ignores_eps", &IgnoresEps);
  m.impl("rms_norm_returning", &RmsNormReturning);
  m.impl("add_in_place", &AddInPlace);
}

}  // namespace kb::harness::testing
