"""Qwen3-8B (transformers, random bf16 weights: the real configuration, no
download) with and without our kernels, eager and under
torch.compile(fullgraph=True): logits checked, prefill and decode timed,
GPU time split by the torch profiler. Needs a CUDA GPU with ~60 GB free.

    python examples/qwen3_8b/run.py [--layers N] [--out DIR]

Writes DIR/qwen3_8b.json and DIR/qwen3_8b.md (default examples/qwen3_8b/results/)."""

import argparse
import copy
import datetime
import json
import sys
from pathlib import Path

import torch
import transformers
from transformers import Qwen3Config, Qwen3ForCausalLM, StaticCache

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE)]
import qwen3_patch  # noqa: E402
from kernel_examples import cli, kernels_loader  # noqa: E402
from kernel_examples.patching import sharing_twin  # noqa: E402
from kernel_examples.default_dtype import default_dtype  # noqa: E402
from kernel_examples.accuracy import TOLERANCE_FACTOR, rel_l2, within_budget  # noqa: E402
from kernel_examples.profile_share import launch_differences, profile_step  # noqa: E402
from kernel_examples.timing import time_interleaved  # noqa: E402

TEMPLATES = ["rmsnorm", "fused_add_rmsnorm", "rope", "swiglu"]
COLUMNS = ["eager", "eager + ours", "compile", "compile + ours"]
WARMUP_CALLS = 3  # untimed calls before a case is timed
PROFILE_STEPS = 2  # calls the profiler records per case


def qwen3_8b_config(layers: int) -> Qwen3Config:
    """Qwen/Qwen3-8B's config.json, with `layers` decoder layers (36 there)."""
    return Qwen3Config(
        vocab_size=151936, hidden_size=4096, intermediate_size=12288,
        num_hidden_layers=layers, num_attention_heads=32, num_key_value_heads=8,
        head_dim=128, hidden_act="silu", max_position_embeddings=40960,
        rms_norm_eps=1e-6, rope_theta=1000000.0, attention_bias=False,
        tie_word_embeddings=False, attn_implementation="sdpa",
    )


def build_model(layers: int) -> Qwen3ForCausalLM:
    torch.manual_seed(0)
    with default_dtype(torch.bfloat16), torch.device("cuda"):
        model = Qwen3ForCausalLM(qwen3_8b_config(layers))
    return model.eval()


def check_logits(model, ours_model, ids):
    """Ours and transformers' bf16 model, each against the same model in fp32
    (kernel_examples.accuracy says why that is the rule)."""
    with torch.no_grad():
        reference = copy.deepcopy(model).float()(ids).logits
        eager = model(ids).logits
        ours = ours_model(ids).logits
    out = {
        "transformers_bf16_vs_fp32": rel_l2(eager, reference),
        "ours_vs_fp32": rel_l2(ours, reference),
        "ours_vs_transformers_bf16": rel_l2(ours, eager),
        "max_abs_diff_vs_transformers_bf16": (ours.float() - eager.float()).abs().max().item(),
        "top1_agreement": (ours.argmax(-1) == eager.argmax(-1)).float().mean().item(),
    }
    out["tolerance_factor"] = TOLERANCE_FACTOR
    out["ok"] = within_budget(out["ours_vs_fp32"], out["transformers_bf16_vs_fp32"])
    del reference
    torch.cuda.empty_cache()
    return out


def prefill_step(forward, ids):
    return lambda: forward(input_ids=ids, use_cache=False, logits_to_keep=1)


def decode_step(model, forward, batch, prompt, calls):
    """One decode step at position `prompt` over a static cache filled by a
    prefill, timed repeatedly. transformers' StaticCache advances its own
    length on every update (cache_position only sets the mask and the rope
    positions), so each call writes the next slot: the cache has a slot for
    each of the `calls` calls the column makes, and every call does the same
    work (attention over the whole static cache, the same mask)."""
    cache = StaticCache(config=model.config, max_cache_len=prompt + calls)
    ids = torch.randint(0, model.config.vocab_size, (batch, prompt), device=model.device)
    with torch.no_grad():
        model(input_ids=ids, past_key_values=cache, use_cache=True,
              cache_position=torch.arange(prompt, device=model.device), logits_to_keep=1)
    token = torch.randint(0, model.config.vocab_size, (batch, 1), device=model.device)
    position = torch.tensor([prompt], device=model.device)
    return lambda: forward(input_ids=token, past_key_values=cache, use_cache=True,
                           cache_position=position, logits_to_keep=1)


def frames_compiled() -> int:
    """Frames dynamo has compiled in this process (grows on every recompile)."""
    return sum(torch._dynamo.utils.counters["frames"].values())


def calls_per_case(iters):
    """The calls measure_case makes of one column's step: the compiling call,
    time_interleaved's warm-up and timed calls, profile_step's warm-up and
    steps."""
    return 1 + WARMUP_CALLS + iters + 1 + PROFILE_STEPS


def measure_case(models, case, iters, namespaces, compile_mode=None):
    """One case, every column: its step built on the column's model
    (`models`: column -> model, patched or not), compiled where the column
    says (fullgraph=True: a graph break raises) by a first call, then the
    columns timed in interleaved rounds (kernel_examples.timing says why) and
    profiled one after another. Per column: the wall times, the profiler's
    GPU time and split, and how many frames dynamo compiled while the case
    was timed (a compiled column that recompiles there is not timing what it
    claims)."""
    kind, batch, tokens = case
    torch._dynamo.reset()
    model = next(iter(models.values()))
    ids = torch.randint(0, model.config.vocab_size, (batch, tokens), device="cuda")
    steps, recompiles = {}, {}
    with torch.no_grad():
        for column, m in models.items():
            forward = torch.compile(m.forward, fullgraph=True, dynamic=False,
                                    mode=compile_mode) if column.startswith("compile") \
                else m.forward
            step = prefill_step(forward, ids) if kind == "prefill" \
                else decode_step(m, forward, batch, tokens, calls_per_case(iters))
            step()  # compiles before the count starts
            steps[column] = counting_recompiles(step, recompiles, column)
        times = time_interleaved(steps, warmup=WARMUP_CALLS, iters=iters)
        profiles = {c: profile_step(steps[c], namespaces, steps=PROFILE_STEPS) for c in steps}
    return times, profiles, recompiles


def counting_recompiles(step, counts, column):
    """step, adding the frames dynamo compiles during each call to
    counts[column]."""
    counts[column] = 0

    def counted():
        before = frames_compiled()
        out = step()
        counts[column] += frames_compiled() - before
        return out

    return counted


def table(results) -> str:
    """Median ms per call of each column, the two ratios the issue's targets
    name, and tokens/s of compile + ours."""
    lines = ["| case | " + " | ".join(COLUMNS)
             + " | ours / eager | compile + ours / compile | tokens/s, compile + ours |",
             "|---" * (len(COLUMNS) + 4) + "|"]
    for case, row in results["times_ms"].items():
        ms = [row[c]["median_ms"] for c in COLUMNS]
        tokens_per_s = results["cases"][case] * 1000.0 / ms[3]
        lines.append(f"| {case} | " + " | ".join(f"{m:.2f} ms" for m in ms)
                     + f" | {ms[0] / ms[1]:.3f}x | {ms[2] / ms[3]:.3f}x | {tokens_per_s:,.0f} |")
    return "\n".join(lines)


def gpu_table(results) -> str:
    """Per case and column: the profiler's GPU time per call, the host time
    until the call returned, our ops' share of that host time and the
    kernels launched. Wall time well above GPU time means the host bounds
    the call, not the GPU; the host columns say where its time goes."""
    lines = ["| case | " + " | ".join(f"{c}: GPU ms, host ms (ours), kernels" for c in COLUMNS)
             + " |", "|---" * (len(COLUMNS) + 1) + "|"]
    for case, row in results["gpu_time"].items():
        cells = []
        for c in COLUMNS:
            host = results["times_ms"][case][c].get("host_ms", float("nan"))
            ours = row[c].get("ours_cpu", 0.0) / 1000
            cells.append(f"{row[c]['total'] / 1000:.2f}, {host:.2f} ({ours:.2f}), "
                         f"{row[c]['kernels']:.0f}")
        lines.append(f"| {case} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _shapes(text):
    return [tuple(int(v) for v in item.split("x")) for item in text.split(",") if item]


def _ints(text):
    return [int(v) for v in text.split(",") if v]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--layers", type=int, default=36, help="decoder layers (36: Qwen3-8B)")
    parser.add_argument("--decode-prompt", type=int, default=2048,
                        help="tokens in the cache before the timed decode step")
    parser.add_argument("--prefill", type=_shapes, default=_shapes("1x512,1x2048,4x2048"),
                        help="prefill cases, BATCHxTOKENS,... (each compiles once per column)")
    parser.add_argument("--decode-batches", type=_ints, default=[1, 8],
                        help="decode cases: batch sizes, comma-separated ('' for none)")
    parser.add_argument("--fuse-layer-boundaries", action=argparse.BooleanOptionalAction,
                        default=True,
                        help="fuse each layer's closing residual add with the next norm "
                             "(qwen3_patch.apply's fuse_layer_boundaries; default: on, 36 "
                             "launches a step fewer)")
    cli.add_common_arguments(parser, HERE)
    args = parser.parse_args()
    cli.require_gpu("tools/tests/e2e/test_examples_qwen3.py")

    kernels = kernels_loader.load(kernels_loader.prepare(TEMPLATES, args.workdir))
    namespaces = [k.__name__ for k in kernels.values()]
    model = build_model(args.layers)
    ours_model = sharing_twin(model)  # the same weights, patched
    patches = qwen3_patch.apply(ours_model, kernels, args.fuse_layer_boundaries)
    print("swapped:", patches.summary())
    models = {c: ours_model if "ours" in c else model for c in COLUMNS}
    cases = {f"prefill {b}x{t}": ("prefill", b, t) for b, t in args.prefill}
    cases.update({f"decode {b} token{'s' * (b > 1)}, {args.decode_prompt} cached":
                  ("decode", b, args.decode_prompt) for b in args.decode_batches})
    results = {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "gpu": torch.cuda.get_device_name(), "torch": torch.__version__,
        "cuda": torch.version.cuda, "transformers": transformers.__version__,
        "compile_mode": args.compile_mode or "default", "timing": "interleaved rounds",
        "fused_layer_boundaries": args.fuse_layer_boundaries,
        "layers": args.layers, "cases": {c: b * (t if k == "prefill" else 1)
                                         for c, (k, b, t) in cases.items()},
        "check": check_logits(model, ours_model, torch.randint(
            0, model.config.vocab_size, (1, 512), device="cuda")),
        "times_ms": {c: {} for c in cases}, "gpu_time": {c: {} for c in cases},
        "recompiles_while_timed": {c: {} for c in cases},
    }
    print("logits:", json.dumps(results["check"]))
    for name, case in cases.items():
        times, profiles, recompiles = measure_case(models, case, args.iters, namespaces,
                                                   args.compile_mode)
        results["times_ms"][name] = times
        results["gpu_time"][name] = profiles
        results["recompiles_while_timed"][name] = recompiles
        print(name, {c: round(t["median_ms"], 3) for c, t in times.items()})
        print(name, "GPU ms", {c: round(p["total"] / 1000, 3) for c, p in profiles.items()},
              "recompiles while timed", recompiles)
        for column, p in profiles.items():
            print(name, column, "host hot spots (us/step, calls/step):", p["host_top"][:6])
        print(name, "kernels launched a different number of times (compile, compile + ours):",
              launch_differences(profiles["compile"], profiles["compile + ours"]))
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "qwen3_8b.json").write_text(json.dumps(results, indent=2))
    (args.out / "qwen3_8b.md").write_text(table(results) + "\n\n" + gpu_table(results) + "\n")
    print(table(results))
    print(gpu_table(results))
    if not results["check"]["ok"]:
        sys.exit("the patched model's logits are further from fp32 than transformers' own")


if __name__ == "__main__":
    main()
