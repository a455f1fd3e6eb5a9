"""diffusers' LTXVideoTransformer3DModel with our kernels swapped in, per
instance and reversibly (`apply` returns the Patches; `undo()` restores).

Per transformer block:
- "adaln": the block's forward, where norm1 / norm2 and their modulation
  become `adaptive_norm` and the two gated residual adds `gated_residual`;
- "rms_norm": attn1 / attn2's norm_q and norm_k (RMSNorm across heads);
- "rope": attn1's processor, where `apply_rotary_emb` on q and k becomes one
  in-place `rope` launch over diffusers' own cos / sin tables (attn2, the
  cross-attention, has no rotary embedding).

The replacement forward and processor copy diffusers 0.42.1's code line for
line except the swapped ops, so the patch refuses other versions and any
model whose structure differs.
"""

from typing import Dict, List

import diffusers
import torch
from diffusers.models.normalization import RMSNorm as DiffusersRMSNorm
from diffusers.models.transformers import transformer_ltx as ltx

from kernel_examples.patching import Patches

DIFFUSERS_VERSION = "0.42.1"
# The Patches kind each kernel (template name) is counted under.
KIND_OF = {"rmsnorm": "rms_norm", "rope": "rope", "adaln": "adaln"}


def apply(model: torch.nn.Module, kernels: Dict[str, object]) -> Patches:
    """Swaps in the kernels given (keys: "rmsnorm", "rope", "adaln"; modules
    with the templates' Python APIs) and returns the Patches."""
    if not kernels or set(kernels) - set(KIND_OF):
        raise ValueError(f"ltx_patch: kernels must be keyed by {sorted(KIND_OF)}, got {sorted(kernels)}")
    check_structure(model)
    patches = Patches()
    for block in model.transformer_blocks:
        if "adaln" in kernels:
            patches.set(block, "forward", _block_forward(block, kernels["adaln"]), "adaln")
        if "rmsnorm" in kernels:
            for attn in (block.attn1, block.attn2):
                for norm in (attn.norm_q, attn.norm_k):
                    patches.set(norm, "forward", _rms_norm_forward(norm, kernels["rmsnorm"]), "rms_norm")
        if "rope" in kernels:
            processor = RopeKernelAttnProcessor(block.attn1.processor, kernels["rope"])
            patches.set(block.attn1, "processor", processor, "rope")
    patches.require(*(KIND_OF[k] for k in kernels))
    return patches


def check_structure(model: torch.nn.Module) -> None:
    """Raises ValueError listing every way `model` differs from what the
    replacement code reproduces."""
    if diffusers.__version__ != DIFFUSERS_VERSION:
        raise ValueError(f"ltx_patch reproduces diffusers {DIFFUSERS_VERSION}'s LTX-Video code; "
                         f"diffusers {diffusers.__version__} is installed")
    if type(model) is not ltx.LTXVideoTransformer3DModel:
        raise ValueError(f"ltx_patch: expected an LTXVideoTransformer3DModel, got {type(model).__name__}")
    problems: List[str] = []
    if type(model.rope) is not ltx.LTXVideoRotaryPosEmbed:
        problems.append(f"rope is {type(model.rope).__name__}, not LTXVideoRotaryPosEmbed")
    dtype = model.proj_in.weight.dtype
    for i, block in enumerate(model.transformer_blocks):
        where = f"transformer_blocks[{i}]"
        if type(block) is not ltx.LTXVideoTransformerBlock:
            problems.append(f"{where} is {type(block).__name__}")
            continue
        if "forward" in block.__dict__:
            problems.append(f"{where}.forward is already replaced")
        if tuple(block.scale_shift_table.shape) != (6, block.norm1.dim[-1]):
            problems.append(f"{where}.scale_shift_table is {tuple(block.scale_shift_table.shape)}")
        # Eager promotes a bf16 activation with fp32 modulation to fp32; the kernels keep x's dtype.
        if block.scale_shift_table.dtype != dtype:
            problems.append(f"{where}.scale_shift_table is {block.scale_shift_table.dtype}, the model {dtype}")
        for name in ("norm1", "norm2"):
            norm = getattr(block, name)
            if type(norm) is not DiffusersRMSNorm or norm.weight is not None:
                problems.append(f"{where}.{name} is not a weightless diffusers RMSNorm")
        for name in ("attn1", "attn2"):
            attn = getattr(block, name)
            if type(attn) is not ltx.LTXAttention:
                problems.append(f"{where}.{name} is {type(attn).__name__}")
                continue
            if type(attn.processor) is not ltx.LTXVideoAttnProcessor:
                problems.append(f"{where}.{name}.processor is {type(attn.processor).__name__}")
            for norm_name in ("norm_q", "norm_k"):
                norm = getattr(attn, norm_name)
                if type(norm) is not torch.nn.RMSNorm or norm.eps is None or len(norm.normalized_shape) != 1:
                    problems.append(f"{where}.{name}.{norm_name} is not a torch RMSNorm over one dim with an eps")
                elif "forward" in norm.__dict__:
                    problems.append(f"{where}.{name}.{norm_name}.forward is already replaced")
    if problems:
        raise ValueError("ltx_patch: the model differs from diffusers' LTX-Video transformer:\n  "
                         + "\n  ".join(problems))


def _rms_norm_forward(norm: torch.nn.RMSNorm, rmsnorm):
    """torch.nn.RMSNorm.forward (weight and eps of `norm`) as the kernel."""

    def forward(x):
        return rmsnorm.rms_norm(x, norm.weight, norm.eps)

    return forward


def _block_forward(block: ltx.LTXVideoTransformerBlock, adaln):
    """LTXVideoTransformerBlock.forward (diffusers 0.42.1) with two swaps:
    norm(h) * (1 + scale) + shift -> adaptive_norm (the unbound chunks of
    ada_values are read in place, per sample or per token as temb comes), and
    h + y * gate -> gated_residual. The ungated cross-attention add stays."""

    def forward(hidden_states, encoder_hidden_states, temb, image_rotary_emb=None,
                encoder_attention_mask=None):
        batch_size = hidden_states.size(0)
        num_ada_params = block.scale_shift_table.shape[0]
        ada_values = block.scale_shift_table[None, None].to(temb.device) + temb.reshape(
            batch_size, temb.size(1), num_ada_params, -1
        )
        shift_msa, scale_msa, gate_msa, shift_mlp, scale_mlp, gate_mlp = ada_values.unbind(dim=2)
        norm_hidden_states = adaln.adaptive_norm(hidden_states, scale_msa, shift_msa, "rms", block.norm1.eps)

        attn_hidden_states = block.attn1(
            hidden_states=norm_hidden_states,
            encoder_hidden_states=None,
            image_rotary_emb=image_rotary_emb,
        )
        hidden_states = adaln.gated_residual(hidden_states, attn_hidden_states, gate_msa)

        attn_hidden_states = block.attn2(
            hidden_states,
            encoder_hidden_states=encoder_hidden_states,
            image_rotary_emb=None,
            attention_mask=encoder_attention_mask,
        )
        hidden_states = hidden_states + attn_hidden_states
        norm_hidden_states = adaln.adaptive_norm(hidden_states, scale_mlp, shift_mlp, "rms", block.norm2.eps)

        ff_output = block.ff(norm_hidden_states)
        return adaln.gated_residual(hidden_states, ff_output, gate_mlp)

    return forward


class RopeKernelAttnProcessor(ltx.LTXVideoAttnProcessor):
    """LTXVideoAttnProcessor.__call__ (diffusers 0.42.1) with
    apply_rotary_emb(query), apply_rotary_emb(key) as one in-place `rope`
    launch: interleaved pairs, diffusers' [b, s, heads * head_dim] float32
    tables (a table per head), heads split first ("bshd"). A subclass, so
    diffusers' attention-backend setters still find it."""

    def __init__(self, original: ltx.LTXVideoAttnProcessor, rope):
        super().__init__()
        self._attention_backend = original._attention_backend
        self._parallel_config = original._parallel_config
        self.rope_kernel = rope

    def __call__(self, attn, hidden_states, encoder_hidden_states=None, attention_mask=None,
                 image_rotary_emb=None):
        batch_size, sequence_length, _ = (
            hidden_states.shape if encoder_hidden_states is None else encoder_hidden_states.shape
        )

        if attention_mask is not None:
            attention_mask = attn.prepare_attention_mask(attention_mask, sequence_length, batch_size)
            attention_mask = attention_mask.view(batch_size, attn.heads, -1, attention_mask.shape[-1])

        if encoder_hidden_states is None:
            encoder_hidden_states = hidden_states

        query = attn.to_q(hidden_states)
        key = attn.to_k(encoder_hidden_states)
        value = attn.to_v(encoder_hidden_states)

        query = attn.norm_q(query)
        key = attn.norm_k(key)

        query = query.unflatten(2, (attn.heads, -1))
        key = key.unflatten(2, (attn.heads, -1))
        value = value.unflatten(2, (attn.heads, -1))

        if image_rotary_emb is not None:
            # In place is safe: query and key are norm_q / norm_k's fresh
            # outputs, which nothing else holds.
            cos, sin = image_rotary_emb
            self.rope_kernel.rope(query, key, cos, sin, interleaved=True, layout="bshd")

        hidden_states = ltx.dispatch_attention_fn(
            query,
            key,
            value,
            attn_mask=attention_mask,
            dropout_p=0.0,
            is_causal=False,
            backend=self._attention_backend,
            parallel_config=self._parallel_config,
        )
        hidden_states = hidden_states.flatten(2, 3)
        hidden_states = hidden_states.to(query.dtype)

        hidden_states = attn.to_out[0](hidden_states)
        hidden_states = attn.to_out[1](hidden_states)
        return hidden_states
