"""examples/qwen3_8b's patch, checked without a GPU: with pure-torch stand-ins
of the kernels the patched Qwen3 computes what transformers' does and undo()
restores it; with the real built kernels on fake CUDA tensors the patched
model exports in one graph (strict export fails on any graph break, as
torch.compile(fullgraph=True) does) and calls each of our ops."""

import json
import sys
from collections import Counter
from pathlib import Path

import pytest

from e2e_support import load_run_module, run_python

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO / "examples"))
sys.path.insert(0, str(REPO / "examples" / "qwen3_8b"))

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
TEMPLATES = ["rmsnorm", "fused_add_rmsnorm", "rope", "swiglu"]


def tiny_config(layers=2):
    return transformers.Qwen3Config(
        hidden_size=128, intermediate_size=256, num_hidden_layers=layers,
        num_attention_heads=4, num_key_value_heads=2, head_dim=32, vocab_size=512)


def test_patched_model_matches_transformers_and_undo_restores_it():
    import qwen3_patch
    from kernel_examples import reference_ops

    torch.manual_seed(0)
    model = transformers.Qwen3ForCausalLM(tiny_config()).eval()
    ids = torch.randint(0, 512, (2, 16))
    kernels, calls = reference_ops.count_calls(reference_ops.qwen3_kernels())
    with torch.no_grad():
        before = model(ids).logits
        patches = qwen3_patch.apply(model, kernels)
        patched = model(ids).logits
        patches.undo()
        after = model(ids).logits
    # 2 layers: input norms 2, final norm 1 (the post-attention norms go
    # through the fused add, the QK-norms through qk_norm_rope); one
    # qk_norm_rope, fused add and silu_mul each.
    assert calls == Counter(rms_norm=3, qk_norm_rope=2, fused_add_rms_norm=2, silu_mul=2)
    assert patches.counts == Counter()  # undo() cleared them
    torch.testing.assert_close(patched, before, rtol=1e-5, atol=1e-5)
    assert torch.equal(after, before)


def test_a_wrong_kernel_changes_the_logits():
    """The check above can fail: a stand-in norm that is 1% off shows."""
    import qwen3_patch
    from kernel_examples import reference_ops

    torch.manual_seed(0)
    model = transformers.Qwen3ForCausalLM(tiny_config()).eval()
    ids = torch.randint(0, 512, (1, 8))
    kernels = reference_ops.qwen3_kernels()
    good = kernels["rmsnorm"].rms_norm
    kernels["rmsnorm"].rms_norm = lambda x, w=None, eps=1e-6: good(x, w, eps) * 1.01
    with torch.no_grad():
        before = model(ids).logits
        qwen3_patch.apply(model, kernels)
        patched = model(ids).logits
    assert not torch.allclose(patched, before, rtol=1e-4, atol=1e-4)


def test_fused_layer_boundaries_match_transformers_and_undo_restores_them():
    """With each layer's closing add fused into the next norm, the patched
    model still computes transformers' logits, eagerly and traced by dynamo
    in one graph; only the first layer's input norm is a plain rms_norm
    (the others and the final norm take the hand-over); undo() restores."""
    import qwen3_patch
    from kernel_examples import reference_ops

    torch.manual_seed(0)
    model = transformers.Qwen3ForCausalLM(tiny_config(layers=3)).eval()
    ids = torch.randint(0, 512, (2, 16))
    kernels, calls = reference_ops.count_calls(reference_ops.qwen3_kernels())
    with torch.no_grad():
        before = model(ids).logits
        patches = qwen3_patch.apply(model, kernels, fuse_layer_boundaries=True)
        patched = model(ids).logits
        assert calls == Counter(rms_norm=1, qk_norm_rope=3, fused_add_rms_norm=6, silu_mul=3)
        compiled = torch.compile(model.forward, fullgraph=True, backend="eager")
        traced = compiled(input_ids=ids).logits
        patches.undo()
        after = model(ids).logits
    torch.testing.assert_close(patched, before, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(traced, before, rtol=1e-5, atol=1e-5)
    assert torch.equal(after, before)


def _decode_logits(model, prompt, tokens, cache_len):
    """Logits of two decode steps over a StaticCache filled by a prefill of
    `prompt`, and the cache's keys after them (what run.py's decode times)."""
    cache = transformers.StaticCache(config=model.config, max_cache_len=cache_len)
    model(input_ids=prompt, past_key_values=cache, use_cache=True,
          cache_position=torch.arange(prompt.shape[1]))
    logits = []
    for i in range(tokens.shape[1]):
        position = torch.tensor([prompt.shape[1] + i])
        logits.append(model(input_ids=tokens[:, i:i + 1], past_key_values=cache, use_cache=True,
                            cache_position=position).logits)
    return torch.cat(logits, 1), [layer.keys.clone() for layer in cache.layers]


def test_decode_writes_k_into_the_static_cache_from_the_fused_kernel():
    """With a StaticCache the decode steps' QK-norm + rope writes k's rows
    straight into the cache (qk_norm_rope_to_cache; the prefill, before the
    cache is allocated, takes qk_norm_rope): the same logits and cached keys
    as transformers', eagerly and traced by dynamo in one graph."""
    import qwen3_patch
    from kernel_examples import reference_ops

    torch.manual_seed(0)
    model = transformers.Qwen3ForCausalLM(tiny_config()).eval()
    prompt, tokens = torch.randint(0, 512, (2, 8)), torch.randint(0, 512, (2, 2))
    kernels, calls = reference_ops.count_calls(reference_ops.qwen3_kernels())
    with torch.no_grad():
        before, keys_before = _decode_logits(model, prompt, tokens, cache_len=12)
        patches = qwen3_patch.apply(model, kernels, fuse_layer_boundaries=True)
        patched, keys_patched = _decode_logits(model, prompt, tokens, cache_len=12)
        # 2 layers: the prefill's qk_norm_rope per layer, then each step's to_cache.
        assert calls["qk_norm_rope"] == 2 and calls["qk_norm_rope_to_cache"] == 4
        model.forward = torch.compile(model.forward, fullgraph=True, backend="eager")
        traced, _ = _decode_logits(model, prompt, tokens, cache_len=12)
        del model.forward
        patches.undo()
    torch.testing.assert_close(patched, before, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(traced, before, rtol=1e-5, atol=1e-5)
    for got, expected in zip(keys_patched, keys_before):
        torch.testing.assert_close(got, expected, rtol=1e-5, atol=1e-5)


def test_a_norm_after_a_fused_boundary_normalizes_any_other_input_itself():
    """The hand-over is used only for the stream it was made for: the final
    norm called on another tensor (or a second time) computes rms_norm."""
    import qwen3_patch
    from kernel_examples import reference_ops

    torch.manual_seed(0)
    model = transformers.Qwen3ForCausalLM(tiny_config()).eval()
    kernels = reference_ops.qwen3_kernels()
    qwen3_patch.apply(model, kernels, fuse_layer_boundaries=True)
    norm = model.model.norm
    x = torch.randn(2, 4, 128)
    boundary = qwen3_patch.LayerBoundary()
    boundary.hand_over(x, torch.zeros_like(x), norm)
    assert boundary.take(x.clone(), norm) is None
    assert boundary.take(x, model.model.layers[1].input_layernorm) is None
    assert torch.equal(boundary.take(x, norm), torch.zeros_like(x))
    assert boundary.take(x, norm) is None  # taken once
    with torch.no_grad():
        expected = reference_ops.rms_norm(x, norm.weight, norm.variance_epsilon)
        torch.testing.assert_close(norm(x), expected)


def test_a_sharing_twin_is_patched_alone_and_shares_the_weights():
    """run.py times the patched and unpatched model side by side: the twin
    holds the model's own parameter tensors (no second copy of 16 GB), and
    patching the twin leaves the model's forwards as they were."""
    import qwen3_patch
    from kernel_examples import reference_ops
    from kernel_examples.patching import sharing_twin

    torch.manual_seed(0)
    model = transformers.Qwen3ForCausalLM(tiny_config()).eval()
    twin = sharing_twin(model)
    assert all(a is b for a, b in zip(model.parameters(), twin.parameters()))
    assert all(a is b for a, b in zip(model.buffers(), twin.buffers()))
    ids = torch.randint(0, 512, (1, 8))
    kernels, calls = reference_ops.count_calls(reference_ops.qwen3_kernels())
    with torch.no_grad():
        before = model(ids).logits
        qwen3_patch.apply(twin, kernels)
        patched = twin(ids).logits
        assert sum(calls.values()) > 0
        calls.clear()
        after = model(ids).logits
    assert sum(calls.values()) == 0  # the model itself calls none of our ops
    assert torch.equal(after, before)
    torch.testing.assert_close(patched, before, rtol=1e-5, atol=1e-5)


def test_interleaved_timing_rotates_the_columns_and_counts_every_call(monkeypatch):
    """time_interleaved calls each step once per round, warm-up rounds first,
    starting each round one column later; each column gets iters times."""
    from kernel_examples import timing

    class FakeEvent:
        def __init__(self, enable_timing=False):
            pass

        def record(self):
            pass

        def synchronize(self):
            pass

        def elapsed_time(self, other):
            return 1.0

    monkeypatch.setattr(timing.torch.cuda, "Event", FakeEvent)
    monkeypatch.setattr(timing.torch.cuda, "synchronize", lambda: None)
    order = []
    steps = {name: (lambda n=name: order.append(n)) for name in "abc"}
    out = timing.time_interleaved(steps, warmup=1, iters=3)
    assert order == list("abc") + list("abc") + list("bca") + list("cab")
    assert set(out) == set("abc") and all(t["median_ms"] == 1.0 for t in out.values())


def test_patch_refuses_a_model_that_returns_hidden_states():
    import qwen3_patch
    from kernel_examples import reference_ops

    config = tiny_config(layers=1)
    config.output_hidden_states = True
    model = transformers.Qwen3ForCausalLM(config)
    with pytest.raises(ValueError, match="output_hidden_states"):
        qwen3_patch.apply(model, reference_ops.qwen3_kernels())


EXPORT = r"""
import json, sys, torch
from collections import Counter
from pathlib import Path
sys.path[:0] = [sys.argv[1] + "/examples", sys.argv[1] + "/examples/qwen3_8b"]
from kernels import get_local_kernel
from torch._subclasses.fake_tensor import FakeTensorMode
import transformers, qwen3_patch
from kernel_examples.default_dtype import default_dtype
from kernel_examples.graph_ops import op_calls
projects = json.loads(sys.argv[2])
kernels = {t: get_local_kernel(Path(p)) for t, p in projects.items()}
config = transformers.Qwen3Config(hidden_size=128, intermediate_size=256, num_hidden_layers=2,
    num_attention_heads=4, num_key_value_heads=2, head_dim=32, vocab_size=512)
with default_dtype(torch.bfloat16), FakeTensorMode(allow_non_fake_inputs=True):
    with torch.device("cuda"):
        model = transformers.Qwen3ForCausalLM(config).eval()
    qwen3_patch.apply(model, kernels, fuse_layer_boundaries=sys.argv[3] == "fused")
    ids = torch.zeros(1, 16, dtype=torch.long, device="cuda")
    with torch.no_grad():  # inference, as run.py runs it: our ops refuse autograd
        exported = torch.export.export(model, (ids,), kwargs={"use_cache": False}, strict=True)
calls = Counter()
for module in kernels.values():
    calls.update(op_calls(exported.graph, module.__name__))
print(json.dumps(calls))
"""


@pytest.mark.parametrize("boundaries, norms, adds", [("plain", 3, 2), ("fused", 1, 4)])
def test_patched_model_exports_in_one_graph_with_the_real_kernels(built_projects, boundaries,
                                                                  norms, adds):
    """Fused boundaries: the second layer's input norm and the final norm
    become the layers' closing fused adds."""
    projects = {t: str(built_projects.get(t)) for t in TEMPLATES}
    result = run_python(EXPORT, REPO, json.dumps(projects), boundaries, timeout=600)
    assert result.returncode == 0, result.stderr[-4000:]
    calls = json.loads(result.stdout.strip().splitlines()[-1])
    assert calls == {"rms_norm": norms, "qk_norm_rope": 2, "fused_add_rms_norm": adds,
                     "silu_mul": 2}


CACHE_EXPORT = r"""
import json, sys, torch
from pathlib import Path
sys.path[:0] = [sys.argv[1] + "/examples"]
from kernels import get_local_kernel
from torch._subclasses.fake_tensor import FakeTensorMode
from kernel_examples.graph_ops import op_calls
rope = get_local_kernel(Path(sys.argv[2]))

class DecodeKeys(torch.nn.Module):  # the patch's StaticLayer update, keys only
    def forward(self, q, k, weight, cos, sin, keys, length):
        rope.qk_norm_rope_to_cache(q, k, weight, weight, cos, sin, keys, length)
        length.add_(k.shape[1])
        return q, keys

with FakeTensorMode(allow_non_fake_inputs=True), torch.device("cuda"):
    bf16 = dict(dtype=torch.bfloat16)
    args = (torch.randn(2, 1, 4, 128, **bf16), torch.randn(2, 1, 2, 128, **bf16),
            torch.ones(128, **bf16), torch.ones(1, 128, **bf16), torch.zeros(1, 128, **bf16),
            torch.zeros(2, 2, 64, 128, **bf16), torch.tensor(5))
    graph = torch.export.export(DecodeKeys(), args, strict=True).graph
print(json.dumps({"calls": op_calls(graph, rope.__name__), "graph": str(graph)}))
"""


def test_the_cache_writing_op_exports_with_the_real_kernel(built_projects):
    """qk_norm_rope_to_cache's schema (q and k_cache mutated, k and the
    length read) and fake implementation hold under strict export, on fake
    CUDA tensors, with the built rope package."""
    result = run_python(CACHE_EXPORT, REPO, built_projects.get("rope"), timeout=600)
    assert result.returncode == 0, result.stderr[-4000:]
    out = json.loads(result.stdout.strip().splitlines()[-1])
    assert out["calls"] == {"qk_norm_rope_to_cache": 1}
    # The length advances after the op reads it, in the same graph.
    graph = out["graph"]
    assert graph.index("qk_norm_rope_to_cache") < graph.index("aten.add_.Tensor](args = (%length")


def test_tables_show_wall_time_ratios_and_gpu_time_per_column():
    """run.py's two tables from made-up numbers: the ratios are eager over
    eager + ours and compile over compile + ours; the GPU table shows each
    column's profiler time, host time (our ops' part in brackets) and
    kernels per call."""
    run = load_run_module("qwen3_8b")
    case = "prefill 1x512"
    wall = dict(zip(run.COLUMNS, (30.0, 20.0, 15.0, 12.0)))
    results = {
        "cases": {case: 512},
        "times_ms": {case: {c: {"median_ms": ms, "host_ms": ms - 1} for c, ms in wall.items()}},
        "gpu_time": {case: {c: {"total": 1000.0 * ms / 2, "kernels": 100 + i,
                                "ours_cpu": 100.0 * i}
                       for i, (c, ms) in enumerate(wall.items())}},
    }
    row = run.table(results).splitlines()[2]
    assert row.startswith(f"| {case} | 30.00 ms | 20.00 ms | 15.00 ms | 12.00 ms |")
    assert "| 1.500x | 1.250x | 42,667 |" in row
    gpu_row = run.gpu_table(results).splitlines()[2]
    assert gpu_row == (f"| {case} | 15.00, 29.00 (0.00), 100 | 10.00, 19.00 (0.10), 101 "
                       f"| 7.50, 14.00 (0.20), 102 | 6.00, 11.00 (0.30), 103 |")


def test_decode_step_has_a_cache_slot_for_every_call_of_a_column():
    """transformers' StaticCache advances its own length on every update, so
    the repeated decode step writes a new slot each call: the step must be
    callable as often as measure_case calls it (on the H200 the step ran
    out of slots and index_copy_ asserted), and one call more overflows."""
    run = load_run_module("qwen3_8b")
    torch.manual_seed(0)
    model = transformers.Qwen3ForCausalLM(tiny_config()).eval()
    iters = 2
    step = run.decode_step(model, model.forward, batch=2, prompt=16,
                           calls=run.calls_per_case(iters))
    with torch.no_grad():
        for _ in range(run.calls_per_case(iters)):
            assert step().logits.shape == (2, 1, 512)
        with pytest.raises(IndexError):
            step()
