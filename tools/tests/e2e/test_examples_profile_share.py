"""examples/kernel_examples/profile_share.py without a GPU: a stand-in profiler
feeds it kernel events, and the split it reports (GPU time by kind, our ops'
share, kernels by name, host hot spots) must add up."""

import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO / "examples"))

torch = pytest.importorskip("torch")


class FakeProfile:
    """What profile_step reads of torch.profiler.profile: kernel events, host
    op events (ours under namespace "ns", nested) and op rows (for the host
    hot spots)."""

    CUDA = torch.autograd.DeviceType.CUDA
    CPU = torch.autograd.DeviceType.CPU

    def __init__(self, *args, **kwargs):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def events(self):
        kernel = lambda name, us: SimpleNamespace(device_type=self.CUDA, name=name,  # noqa: E731
                                                  device_time=us)
        per_step = [kernel("nvjet_gemm", 50.0), kernel("flash_fwd", 30.0),
                    kernel("RmsNormKernel", 5.0), kernel("RmsNormKernel", 5.0),
                    kernel("triton_poi_fused_add", 2.0)]
        host = SimpleNamespace(device_type=self.CPU, name="aten::mm", device_time=0.0,
                               cpu_parent=None)
        return (per_step + [host] + self.ours_calls() + self.ours_calls()) * 2  # two steps

    def ours_calls(self):
        """One call of ours (an RmsNormKernel: 5 us on the GPU, 10 on the host)
        under a host op, with an op of ours inside it that holds the kernel:
        counted once."""
        op = lambda name, parent, cpu: SimpleNamespace(  # noqa: E731
            device_type=self.CPU, name=name, cpu_parent=parent, device_time_total=5.0,
            cpu_time_total=cpu)
        caller = op("aten::linear", None, 50.0)
        outer = op("ns::rms_norm", caller, 10.0)
        caller.device_time_total = 5.0
        return [caller, outer, op("ns::rms_norm_impl", outer, 6.0)]

    def key_averages(self):
        row = lambda key, cpu, self_cpu, gpu, count: SimpleNamespace(  # noqa: E731
            key=key, cpu_time_total=cpu, self_cpu_time_total=self_cpu,
            device_time_total=gpu, count=count)
        # The rows as the profiler sums them: the nested op's kernels in both of ours.
        return [row("ns::rms_norm", 40.0, 16.0, 20.0, 4), row("aten::mm", 100.0, 90.0, 0.0, 2),
                row("ns::rms_norm_impl", 24.0, 24.0, 20.0, 4)]


def test_the_split_adds_up_per_step(monkeypatch):
    from kernel_examples import profile_share

    monkeypatch.setattr(profile_share, "profile", FakeProfile)
    monkeypatch.setattr(profile_share.torch.cuda, "synchronize", lambda: None)
    calls = []
    out = profile_share.profile_step(lambda: calls.append(1), ["ns"], steps=2)
    assert len(calls) == 3  # one warm-up call, two profiled
    assert out["kernels"] == 5 and out["total"] == 92.0
    assert (out["gemm"], out["attention"], out["ours"]) == (50.0, 30.0, 10.0)
    assert out["other"] == 2.0 and out["ours_cpu"] == 20.0
    assert out["kernels_by_name"] == [["RmsNormKernel", 2.0, 10.0], ["nvjet_gemm", 1.0, 50.0],
                                      ["flash_fwd", 1.0, 30.0], ["triton_poi_fused_add", 1.0, 2.0]]
    assert out["host_top"] == [["aten::mm", 45.0, 1.0], ["ns::rms_norm_impl", 12.0, 2.0],
                               ["ns::rms_norm", 8.0, 2.0]]


def test_launch_differences_name_what_one_column_launches_more_often():
    from kernel_examples.profile_share import launch_differences

    compile_ = {"kernels_by_name": [["add_norm", 36.0, 90.0], ["gemm", 252.0, 9000.0]]}
    ours = {"kernels_by_name": [["add", 36.0, 40.0], ["rms_norm", 37.0, 80.0],
                                ["gemm", 252.0, 9000.0]]}
    assert launch_differences(compile_, ours) == [
        ["rms_norm", 0.0, 37.0], ["add", 0.0, 36.0], ["add_norm", 36.0, 0.0]]
