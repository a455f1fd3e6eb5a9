"""examples/ltx_video: diffusers' LTX-Video transformer with our kernels swapped in.

On CPU, float32, with the pure-torch stand-ins (examples/kernel_examples/
reference_ops.py): the patched model matches the unpatched one, every
swapped op runs as often as expected, undo() restores the forwards and the
output, and a model of another structure is refused. With the real kernels
(rmsnorm, rope, adaln built by kbuild) on a fake-CUDA bf16 model: strict
torch.export, which fails on any graph break as fullgraph=True does, succeeds
and the graph calls our ops the expected number of times.
"""

import sys
from collections import Counter
from pathlib import Path

import pytest
import torch

from e2e_support import REPO_ROOT, load_run_module

try:
    import diffusers  # noqa: F401
except ImportError as error:
    pytest.skip(f"diffusers is not importable ({error})", allow_module_level=True)

from diffusers import LTXVideoTransformer3DModel  # noqa: E402

sys.path[:0] = [str(REPO_ROOT / "examples"), str(REPO_ROOT / "examples" / "ltx_video")]
import ltx_patch  # noqa: E402
from kernel_examples import reference_ops  # noqa: E402
from kernel_examples.default_dtype import default_dtype  # noqa: E402
from kernel_examples.graph_ops import op_calls  # noqa: E402
from kernel_examples.reference_ops import ltx_kernels  # noqa: E402

LAYERS = 2
# inner_dim 16: 16 % 6 = 4 channels of LTX-Video's rope are padding (cos 1, sin 0).
TINY = dict(in_channels=8, out_channels=8, num_attention_heads=2, attention_head_dim=8,
            cross_attention_dim=16, num_layers=LAYERS, caption_channels=12)
FRAMES, HEIGHT, WIDTH, TEXT = 2, 3, 4, 5
# Per forward: two adaptive norms and two gated residuals per block, norm_q
# and norm_k in both attentions, one rope launch in self-attention.
EXPECTED_CALLS = {"adaptive_norm": 2 * LAYERS, "gated_residual": 2 * LAYERS,
                  "rms_norm": 4 * LAYERS, "rope": LAYERS}
EXPECTED_PATCHES = {"adaln": LAYERS, "rms_norm": 4 * LAYERS, "rope": LAYERS}


def tiny_model():
    torch.manual_seed(0)
    return LTXVideoTransformer3DModel(**TINY).eval()


def tiny_inputs(batch=2, per_token_timestep=False, device=None):
    tokens = FRAMES * HEIGHT * WIDTH
    timestep = torch.tensor([500.0, 20.0][:batch], dtype=torch.float32, device=device)
    if per_token_timestep:  # image-conditioned LTX pipelines: one timestep per token
        timestep = timestep[:, None] * torch.linspace(0.5, 1.0, tokens, device=device)
    mask = torch.ones(batch, TEXT, dtype=torch.bool, device=device)
    mask[0, 3:] = False  # padded prompt tokens
    return dict(hidden_states=torch.randn(batch, tokens, TINY["in_channels"], device=device),
                encoder_hidden_states=torch.randn(batch, TEXT, TINY["caption_channels"], device=device),
                timestep=timestep, encoder_attention_mask=mask, num_frames=FRAMES, height=HEIGHT,
                width=WIDTH, rope_interpolation_scale=(8 / 25, 32, 32), return_dict=False)


def originals(model):
    """What the patch replaces, per block: instance forwards and processors."""
    state = []
    for block in model.transformer_blocks:
        state.append(("forward" in block.__dict__, block.attn1.processor, block.attn2.processor,
                      *("forward" in a.__dict__ for a in (block.attn1.norm_q, block.attn1.norm_k,
                                                         block.attn2.norm_q, block.attn2.norm_k))))
    return state


@pytest.mark.parametrize("per_token_timestep", [False, True], ids=["per-sample", "per-token"])
def test_stand_ins_match_unpatched_and_undo_restores(per_token_timestep):
    model = tiny_model()
    torch.manual_seed(1)
    inputs = tiny_inputs(per_token_timestep=per_token_timestep)
    before = originals(model)
    kernels, calls = reference_ops.count_calls(ltx_kernels())
    with torch.no_grad():
        expected = model(**inputs)[0]
        patches = ltx_patch.apply(model, kernels)
        assert dict(patches.counts) == EXPECTED_PATCHES
        got = model(**inputs)[0]
        assert dict(calls) == EXPECTED_CALLS
        torch.testing.assert_close(got, expected, rtol=1e-5, atol=1e-6)
        patches.undo()
        assert originals(model) == before
        assert torch.equal(model(**inputs)[0], expected)
    assert dict(calls) == EXPECTED_CALLS, "a stand-in ran after undo()"


def test_a_stand_in_one_percent_off_is_caught():
    """The tolerance above is tight enough to see a slightly wrong kernel."""
    model = tiny_model()
    inputs = tiny_inputs()
    kernels = ltx_kernels()
    exact = kernels["adaln"].adaptive_norm
    kernels["adaln"].adaptive_norm = lambda x, *args: exact(x, *args) * 1.01
    with torch.no_grad():
        expected = model(**inputs)[0]
        ltx_patch.apply(model, kernels)
        with pytest.raises(AssertionError):
            torch.testing.assert_close(model(**inputs)[0], expected, rtol=1e-5, atol=1e-6)


def test_refuses_a_model_of_another_structure():
    model = tiny_model()
    model.transformer_blocks[1].norm2 = torch.nn.LayerNorm(16, elementwise_affine=False)
    with pytest.raises(ValueError, match=r"transformer_blocks\[1\]\.norm2"):
        ltx_patch.apply(model, ltx_kernels())
    assert "forward" not in model.transformer_blocks[0].__dict__, "a refused patch changed the model"
    with pytest.raises(ValueError, match="expected an LTXVideoTransformer3DModel"):
        ltx_patch.apply(torch.nn.Linear(2, 2), ltx_kernels())


def test_refuses_to_patch_twice_and_unknown_kernels():
    model = tiny_model()
    ltx_patch.apply(model, ltx_kernels())
    with pytest.raises(ValueError, match="already replaced"):
        ltx_patch.apply(model, ltx_kernels())
    with pytest.raises(ValueError, match="keyed by"):
        ltx_patch.apply(tiny_model(), {"geglu": object()})


def test_real_kernels_export_strict_without_graph_breaks(built_projects):
    from kernels import get_local_kernel
    from torch._subclasses.fake_tensor import FakeTensorMode

    kernels = {t: get_local_kernel(Path(built_projects.get(t))) for t in ("rmsnorm", "rope", "adaln")}
    with default_dtype(torch.bfloat16), FakeTensorMode(allow_non_fake_inputs=True):
        with torch.device("cuda"):
            model = tiny_model()
        inputs = tiny_inputs(batch=1, device="cuda")
        patches = ltx_patch.apply(model, kernels)
        # Outside torch.device(...): its mode would itself break the graph. Under no_grad:
        # inference, as run.py runs it (our ops refuse autograd).
        with torch.no_grad():
            exported = torch.export.export(model, (), inputs, strict=True)
    assert dict(patches.counts) == EXPECTED_PATCHES
    calls = Counter()
    for module in kernels.values():
        calls.update(op_calls(exported.graph, module.ops.name))
    assert dict(calls) == EXPECTED_CALLS
    # The eager forms are gone: diffusers' RMSNorm (rsqrt) and torch's RMSNorm.
    eager = {str(n.target) for n in exported.graph.nodes if n.op == "call_function"}
    assert not eager & {"aten.rsqrt.default", "aten.rms_norm.default"}, sorted(eager)


def test_table_shows_speedups_errors_and_gpu_time_per_column():
    """run.py's table from made-up numbers: speedup over eager, the error
    rows, the profiler's GPU time and kernels per step, and the shares."""
    run = load_run_module("ltx_video")
    columns = {}
    for i, (column, ms) in enumerate(zip(run.COLUMNS, (40.0, 30.0, 32.0, 25.0))):
        profile = {"total": 1000.0 * (ms - 5), "kernels": 900 - 100 * i}
        profile.update({f"{p}_share": 0.25 for p in ("gemm", "attention", "ours", "other")})
        columns[column] = {"times_ms": {"median_ms": ms}, "profile": profile}
    check = {c: {"rel_l2_vs_fp32": 0.01, "max_abs_diff_vs_eager": 0.0} for c in run.COLUMNS}
    lines = run.table({"columns": columns, "check": check}).splitlines()
    assert lines[2] == "| ms per step (median) | 40.00 | 30.00 | 32.00 | 25.00 |"
    assert lines[3] == "| speedup vs eager | 1.000x | 1.333x | 1.250x | 1.600x |"
    assert "| GPU ms per step (profiler) | 35.00 | 25.00 | 27.00 | 20.00 |" in lines
    assert "| kernels per step | 900 | 800 | 700 | 600 |" in lines
