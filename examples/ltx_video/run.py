"""LTX-Video 0.9's transformer (diffusers, random bf16 weights: the real
configuration, no download) on one denoising step at 768x512, 49 frames,
with and without our kernels, eager and under torch.compile(fullgraph=True):
output checked against the fp32 model, step timed, GPU time split by the
torch profiler. Needs a CUDA GPU with ~20 GB free.

    python examples/ltx_video/run.py [--layers N] [--batch B] [--out DIR]

Writes DIR/ltx_video.json and DIR/ltx_video.md (default
examples/ltx_video/results/; ltx_video_<N>layers.* with --layers N != 28)."""

import argparse
import copy
import datetime
import json
import sys
from pathlib import Path

import diffusers
import torch
from diffusers import LTXVideoTransformer3DModel

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE)]
import ltx_patch  # noqa: E402
from kernel_examples import cli, kernels_loader  # noqa: E402
from kernel_examples.default_dtype import default_dtype  # noqa: E402
from kernel_examples.accuracy import TOLERANCE_FACTOR, rel_l2  # noqa: E402
from kernel_examples.profile_share import profile_step  # noqa: E402
from kernel_examples.timing import time_step  # noqa: E402

TEMPLATES = ["rmsnorm", "rope", "adaln"]
COLUMNS = ["eager", "eager + ours", "compile", "compile + ours"]
FULL_LAYERS = 28

# The video: 768x512, 49 frames; LTX-Video's VAE compresses 8x in time and
# 32x in space into 128 channels: latents [b, 128, 7, 16, 24], 2688 tokens.
FRAMES, HEIGHT, WIDTH, FRAME_RATE = 49, 512, 768, 25
VAE_TEMPORAL, VAE_SPATIAL, LATENT_CHANNELS = 8, 32, 128
# LTXPipeline's defaults: prompts padded to 128 T5 tokens (4096 channels).
TEXT_TOKENS, TEXT_CHANNELS, PROMPT_TOKENS = 128, 4096, 40


def ltx_video_config(layers: int) -> dict:
    """Lightricks/LTX-Video transformer/config.json (LTX-Video 0.9, 2B), with
    `layers` transformer blocks (28 there)."""
    return dict(
        in_channels=128, out_channels=128, patch_size=1, patch_size_t=1,
        num_attention_heads=32, attention_head_dim=64, cross_attention_dim=2048,
        num_layers=layers, activation_fn="gelu-approximate", qk_norm="rms_norm_across_heads",
        norm_elementwise_affine=False, norm_eps=1e-6, caption_channels=4096,
        attention_bias=True, attention_out_bias=True,
    )


def build_model(layers: int) -> LTXVideoTransformer3DModel:
    torch.manual_seed(0)
    with default_dtype(torch.bfloat16), torch.device("cuda"):
        model = LTXVideoTransformer3DModel(**ltx_video_config(layers))
    return model.eval()


def step_inputs(batch: int) -> dict:
    """One transformer call as LTXPipeline makes it (batch 2 with guidance)."""
    torch.manual_seed(1)
    frames = (FRAMES - 1) // VAE_TEMPORAL + 1
    height, width = HEIGHT // VAE_SPATIAL, WIDTH // VAE_SPATIAL
    latents = torch.randn(batch, LATENT_CHANNELS, frames, height, width, device="cuda",
                          dtype=torch.bfloat16)
    mask = torch.zeros(batch, TEXT_TOKENS, dtype=torch.bool, device="cuda")
    mask[:, :PROMPT_TOKENS] = True
    return dict(
        # LTXPipeline._pack_latents with patch size 1: [b, f * h * w, c], frames outermost.
        hidden_states=latents.permute(0, 2, 3, 4, 1).flatten(1, 3),
        encoder_hidden_states=torch.randn(batch, TEXT_TOKENS, TEXT_CHANNELS, device="cuda",
                                          dtype=torch.bfloat16),
        timestep=torch.full((batch,), 500.0, device="cuda"),
        encoder_attention_mask=mask,
        num_frames=frames, height=height, width=width,
        rope_interpolation_scale=(VAE_TEMPORAL / FRAME_RATE, VAE_SPATIAL, VAE_SPATIAL),
        return_dict=False,
    )


def fp32_reference(model, inputs) -> torch.Tensor:
    """The same weights and inputs in float32: what every column is judged against."""
    as_fp32 = {k: v.float() if torch.is_tensor(v) and v.is_floating_point() else v
               for k, v in inputs.items()}
    with torch.no_grad():
        reference = copy.deepcopy(model).float()(**as_fp32)[0]
    torch.cuda.empty_cache()
    return reference


def check_outputs(outputs, reference) -> dict:
    """Each column's relative L2 error against the fp32 model; a column passes
    within TOLERANCE_FACTOR x diffusers' own bf16 (eager) error
    (kernel_examples.accuracy says why). A wrong swap (a lost 1 + scale, a
    wrong rope pairing) is off by O(1); the exact match in float32 is the CPU
    tests' job."""
    eager = outputs["eager"]
    budget = TOLERANCE_FACTOR * rel_l2(eager, reference)
    check = {"tolerance_rel_l2_vs_fp32": budget}
    for column, out in outputs.items():
        error = rel_l2(out, reference)
        check[column] = {"rel_l2_vs_fp32": error, "rel_l2_vs_eager": rel_l2(out, eager),
                         "max_abs_diff_vs_eager": (out.float() - eager.float()).abs().max().item(),
                         "ok": error <= budget}
    return check


def measure_column(model, compiled, inputs, iters, namespaces, compile_mode=None):
    """Output, step times and GPU-time split of the model as it is now. The
    compiled column compiles on its first call (fullgraph=True: a graph break
    raises), is warmed up by time_step, then timed."""
    torch._dynamo.reset()
    forward = torch.compile(model.forward, fullgraph=True, dynamic=False,
                            mode=compile_mode) if compiled \
        else model.forward
    with torch.no_grad():
        output = forward(**inputs)[0]
        times = time_step(lambda: forward(**inputs), warmup=3, iters=iters)
        profile = profile_step(lambda: forward(**inputs), namespaces)
    return output, times, profile


def table(results) -> str:
    """The four columns side by side: time, speedup, error, where GPU time goes."""
    cols = [c for c in COLUMNS if c in results["columns"]]
    row = lambda name, cells: f"| {name} | " + " | ".join(cells) + " |"  # noqa: E731
    data = results["columns"]
    eager_ms = data["eager"]["times_ms"]["median_ms"]
    lines = [row("", cols), "|---" * (len(cols) + 1) + "|",
             row("ms per step (median)", [f"{data[c]['times_ms']['median_ms']:.2f}" for c in cols]),
             row("speedup vs eager", [f"{eager_ms / data[c]['times_ms']['median_ms']:.3f}x"
                                      for c in cols]),
             row("rel. L2 vs fp32 model", [f"{results['check'][c]['rel_l2_vs_fp32']:.2e}"
                                           for c in cols]),
             row("max abs diff vs eager", [f"{results['check'][c]['max_abs_diff_vs_eager']:.3g}"
                                           for c in cols])]
    lines.append(row("GPU ms per step (profiler)",
                     [f"{data[c]['profile']['total'] / 1000:.2f}" for c in cols]))
    lines.append(row("kernels per step", [f"{data[c]['profile']['kernels']:.0f}" for c in cols]))
    for part in ("gemm", "attention", "ours", "other"):
        lines.append(row(f"GPU share: {part}", [f"{data[c]['profile'][part + '_share']:.1%}"
                                                for c in cols]))
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--layers", type=int, default=FULL_LAYERS, help="transformer blocks (28)")
    parser.add_argument("--batch", type=int, default=1, help="2: classifier-free guidance")
    cli.add_common_arguments(parser, HERE)
    args = parser.parse_args()
    cli.require_gpu("tools/tests/e2e/test_examples_ltx.py")

    kernels = kernels_loader.load(kernels_loader.prepare(TEMPLATES, args.workdir))
    namespaces = [k.__name__ for k in kernels.values()]
    model = build_model(args.layers)
    inputs = step_inputs(args.batch)
    reference = fp32_reference(model, inputs)
    results = {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "gpu": torch.cuda.get_device_name(), "torch": torch.__version__,
        "cuda": torch.version.cuda, "diffusers": diffusers.__version__,
        "compile_mode": args.compile_mode or "default",
        "layers": args.layers, "batch": args.batch,
        "tokens": inputs["hidden_states"].shape[1], "columns": {}, "errors": {},
    }
    outputs = {}
    for column in COLUMNS:
        patches = ltx_patch.apply(model, kernels) if "ours" in column else None
        try:
            output, times, profile = measure_column(model, column.startswith("compile"), inputs,
                                                    args.iters, namespaces,
                                                    args.compile_mode)
        except Exception as error:  # a graph break under fullgraph=True lands here
            results["errors"][column] = f"{type(error).__name__}: {error}"[:4000]
            print(f"{column}: FAILED: {results['errors'][column][:500]}")
            continue
        finally:
            if patches:
                results["patched"] = patches.summary()
                patches.undo()
        outputs[column] = output
        results["columns"][column] = {"times_ms": times, "profile": profile,
                                      "fullgraph": column.startswith("compile")}
        print(f"{column}: {times['median_ms']:.2f} ms per step")
    if "eager" not in outputs:
        sys.exit("the unpatched eager step failed: " + results["errors"]["eager"])
    results["check"] = check_outputs(outputs, reference)
    print("check:", json.dumps(results["check"]))

    stem = "ltx_video" if args.layers == FULL_LAYERS else f"ltx_video_{args.layers}layers"
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"{stem}.json").write_text(json.dumps(results, indent=2))
    (args.out / f"{stem}.md").write_text(table(results) + "\n")
    print(table(results))
    failed = [c for c in COLUMNS if c in results["errors"] or not results["check"][c]["ok"]]
    if failed:
        sys.exit(f"failed: {', '.join(failed)} (see {args.out / stem}.json)")


if __name__ == "__main__":
    main()
