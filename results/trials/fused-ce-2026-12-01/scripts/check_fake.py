"""Checks the op without a GPU: schema, fake impl under FakeTensorMode and
meta tensors, torch.compile(fullgraph=True) with a recording backend (no
graph break), dynamic shapes, and the backward's formula against
F.cross_entropy's autograd on the CPU (the backward is plain PyTorch)."""
import sys
from pathlib import Path

import torch
import torch.nn.functional as F
from kernels import get_local_kernel
from torch._subclasses.fake_tensor import FakeTensorMode

project = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).parents[1])
k = get_local_kernel(project)
print("schema:", k.ops.cross_entropy.default._schema)

with FakeTensorMode():
    for dtype in (torch.bfloat16, torch.float16, torch.float32):
        x = torch.empty(512, 151936, dtype=dtype, device="meta")
        t = torch.empty(512, dtype=torch.int64, device="meta")
        y = k.cross_entropy(x, t)
        assert y.shape == (512,) and y.dtype == torch.float32, (y.shape, y.dtype)
    x3 = torch.empty(4, 7, 151936, dtype=torch.bfloat16, device="meta")
    y3 = k.cross_entropy(x3, torch.empty(4, 7, dtype=torch.int64, device="meta"))
    assert y3.shape == (4, 7)
    try:
        k.cross_entropy(x3, torch.empty(4, 8, dtype=torch.int64, device="meta"))
        raise AssertionError("misshapen target accepted by the fake impl")
    except RuntimeError as e:
        print("fake impl refuses a misshapen target:", str(e).splitlines()[0])
print("FakeTensorMode: ok")

graphs = []


def record(gm, example_inputs):
    graphs.append(gm)
    return gm.forward


def model(x, t):  # the op between ordinary ops, as in a training step's loss
    loss = k.cross_entropy(x * 1.0, t)
    return loss.sum() / (t != -100).sum()


for dynamic in (False, True):
    graphs.clear()
    torch._dynamo.reset()
    compiled = torch.compile(model, backend=record, fullgraph=True, dynamic=dynamic)
    for rows in (512, 2048):
        compiled(torch.empty(rows, 151936, dtype=torch.bfloat16, device="meta"),
                 torch.empty(rows, dtype=torch.int64, device="meta"))
    assert len(graphs) >= 1
    ops = [n.target for n in graphs[0].graph.nodes if n.op == "call_function"]
    assert any("cross_entropy" in str(o) for o in ops), ops
    print(f"torch.compile(fullgraph=True, dynamic={dynamic}): {len(graphs)} graph(s), op in graph")

# AOT autograd trace (fake impl + registered backward) under torch.compile.
graphs.clear()
torch._dynamo.reset()
from torch._functorch.aot_autograd import aot_module_simplified  # noqa: E402


def aot_record(gm, example_inputs):
    def fw(g, _):
        graphs.append(("fw", g))
        return g.forward

    def bw(g, _):
        graphs.append(("bw", g))
        return g.forward

    return aot_module_simplified(gm, example_inputs, fw_compiler=fw, bw_compiler=bw)


xm = torch.empty(64, 1000, dtype=torch.bfloat16, device="meta", requires_grad=True)
tm = torch.empty(64, dtype=torch.int64, device="meta")
out = torch.compile(model, backend=aot_record, fullgraph=True)(xm, tm)
out.backward()
print("aot autograd graphs:", [name for name, _ in graphs])

# The backward formula on the CPU against F.cross_entropy's gradient.
import importlib  # noqa: E402

mod = importlib.import_module(k.__name__)


class Ctx:
    def save_for_backward(self, *tensors):
        self.saved_tensors = tensors


torch.manual_seed(0)
x = torch.randn(37, 1001, dtype=torch.float32, requires_grad=True)
t = torch.randint(0, 1001, (37,))
t[::5] = -100
g = torch.randn(37)
ref = torch.autograd.grad((F.cross_entropy(x, t, reduction="none") * g).sum(), x)[0]
ctx = Ctx()
mod._setup_context(ctx, (x.detach(), t, -100), None)
got = mod._backward(ctx, g)[0]
torch.testing.assert_close(got, ref, atol=1e-6, rtol=1e-5)
print("backward formula vs F.cross_entropy autograd (CPU, fp32): ok")
