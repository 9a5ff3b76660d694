"""A GPT-2 transformer in the HuggingFace parameter layout (so a `pytorch_model.bin` loads by
name), fed embeddings instead of token ids, with low-rank adapters on its linear layers."""

from __future__ import annotations

import json
import math
import os
from dataclasses import asdict, dataclass

import torch
from torch import nn

from . import NetllmError


@dataclass(frozen=True)
class Gpt2Config:
    """GPT-2's config.json fields that shape the network (HuggingFace names)."""
    n_embd: int = 768
    n_layer: int = 12
    n_head: int = 12
    n_positions: int = 1024
    vocab_size: int = 50257
    n_inner: int | None = None  # None: 4 x n_embd
    layer_norm_epsilon: float = 1e-5

    def __post_init__(self):
        if self.n_embd <= 0 or self.n_layer <= 0 or self.n_head <= 0 or self.n_positions <= 0:
            raise NetllmError(f"backbone: sizes must be positive: {self}")
        if self.n_embd % self.n_head:
            raise NetllmError(f"backbone: n_embd {self.n_embd} is not a multiple of n_head "
                              f"{self.n_head}")

    @property
    def inner(self) -> int:
        return self.n_inner or 4 * self.n_embd

    @classmethod
    def from_json(cls, path: str) -> "Gpt2Config":
        try:
            with open(path, encoding="utf-8") as f:
                raw = json.load(f)
        except OSError as e:
            raise NetllmError(f"{path}: cannot open: {e.strerror}") from None
        except json.JSONDecodeError as e:
            raise NetllmError(f"{path}:{e.lineno}: not JSON: {e.msg}") from None
        fields = {}
        for name in cls.__dataclass_fields__:
            if name in raw:
                value = raw[name]
                expected = float if name == "layer_norm_epsilon" else int
                if value is not None and not isinstance(value, (int, float) if expected is float
                                                       else int):
                    raise NetllmError(f"{path}: {name}: expected a number, got {value!r}")
                fields[name] = value
        return cls(**fields)

    def to_dict(self) -> dict:
        return asdict(self)


GPT2_SMALL = Gpt2Config()


class LoraConv1D(nn.Module):
    """GPT-2's Conv1D (y = x W + b, W stored [in, out]) plus a low-rank update
    (alpha / rank) * dropout(x) A B. B starts at zero, so the layer starts as the frozen one."""

    def __init__(self, n_in: int, n_out: int, device=None):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(n_in, n_out, device=device))
        self.bias = nn.Parameter(torch.zeros(n_out, device=device))
        nn.init.normal_(self.weight, std=0.02)
        self.rank = 0

    def add_lora(self, rank: int, alpha: float, dropout: float) -> None:
        n_in, n_out = self.weight.shape
        self.rank, self.scaling = rank, alpha / rank
        self.lora_A = nn.Parameter(torch.empty(n_in, rank, device=self.weight.device))
        self.lora_B = nn.Parameter(torch.zeros(rank, n_out, device=self.weight.device))
        nn.init.kaiming_uniform_(self.lora_A.T, a=math.sqrt(5))  # as nn.Linear's (out, in) weight
        self.lora_dropout = nn.Dropout(dropout)

    def _merged_weight(self) -> torch.Tensor:
        """W + (alpha / rank) A B, cached until one of the three changes (inference only)."""
        key = (self.weight._version, self.lora_A._version, self.lora_B._version,
               self.weight.data_ptr(), self.lora_A.data_ptr(), self.lora_B.data_ptr())
        if getattr(self, "_merged_key", None) != key:
            self._merged = self.weight + self.scaling * (self.lora_A @ self.lora_B)
            self._merged_key = key
        return self._merged

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        flat = x.reshape(-1, x.shape[-1])
        if self.rank and not self.training and not torch.is_grad_enabled():
            # Without dropout or gradients the adapter folds into one product.
            return torch.addmm(self.bias, flat, self._merged_weight()).reshape(*x.shape[:-1], -1)
        y = torch.addmm(self.bias, flat, self.weight).reshape(*x.shape[:-1], -1)
        if self.rank:
            y = y + (self.lora_dropout(x) @ self.lora_A @ self.lora_B) * self.scaling
        return y


def _real_rows(layer, x: torch.Tensor, valid: torch.Tensor | None) -> torch.Tensor:
    """layer(x) computed on the real tokens only (padding rows stay 0): with many ragged rows
    in a batch most of a padded product would be wasted."""
    if valid is None:
        return layer(x)
    y = layer(x[valid])
    out = y.new_zeros(*x.shape[:-1], y.shape[-1])
    out[valid] = y
    return out


class Attention(nn.Module):
    def __init__(self, c: Gpt2Config, device=None):
        super().__init__()
        self.n_head = c.n_head
        self.c_attn = LoraConv1D(c.n_embd, 3 * c.n_embd, device)
        self.c_proj = LoraConv1D(c.n_embd, c.n_embd, device)

    def forward(self, x: torch.Tensor, mask: torch.Tensor, valid=None, past=None):
        """`past`: this layer's (keys, values) of earlier tokens, which `mask` covers first;
        `valid`: x's real tokens (None: all). Returns the output and the (keys, values)
        including x's."""
        b, t, h = x.shape
        q, k, v = _real_rows(self.c_attn, x, valid).split(h, dim=2)
        q, k, v = (z.view(b, t, self.n_head, h // self.n_head).transpose(1, 2) for z in (q, k, v))
        if past is not None:
            k, v = torch.cat([past[0], k], dim=2), torch.cat([past[1], v], dim=2)
        scores = (q @ k.transpose(-1, -2)) / math.sqrt(h // self.n_head)
        scores = scores.masked_fill(~mask, torch.finfo(scores.dtype).min)
        y = torch.softmax(scores, dim=-1) @ v
        return _real_rows(self.c_proj, y.transpose(1, 2).reshape(b, t, h), valid), (k, v)


class Mlp(nn.Module):
    def __init__(self, c: Gpt2Config, device=None):
        super().__init__()
        self.c_fc = LoraConv1D(c.n_embd, c.inner, device)
        self.c_proj = LoraConv1D(c.inner, c.n_embd, device)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.c_proj(nn.functional.gelu(self.c_fc(x), approximate="tanh"))


class Block(nn.Module):
    def __init__(self, c: Gpt2Config, device=None):
        super().__init__()
        self.ln_1 = nn.LayerNorm(c.n_embd, eps=c.layer_norm_epsilon, device=device)
        self.attn = Attention(c, device)
        self.ln_2 = nn.LayerNorm(c.n_embd, eps=c.layer_norm_epsilon, device=device)
        self.mlp = Mlp(c, device)

    def forward(self, x: torch.Tensor, mask: torch.Tensor, valid=None, past=None):
        y, present = self.attn(self.ln_1(x), mask, valid, past)
        x = x + y
        return x + _real_rows(self.mlp, self.ln_2(x), valid), present


class Gpt2(nn.Module):
    """GPT2Model's parameters under HuggingFace's names (wte, wpe, h.{i}.*, ln_f). `forward` takes
    input embeddings [B, T, n_embd] (wte is kept for the layout and the parameter count only)."""

    def __init__(self, config: Gpt2Config, device=None):
        super().__init__()
        self.config = config
        self.wte = nn.Embedding(config.vocab_size, config.n_embd, device=device)
        self.wpe = nn.Embedding(config.n_positions, config.n_embd, device=device)
        self.h = nn.ModuleList(Block(config, device) for _ in range(config.n_layer))
        self.ln_f = nn.LayerNorm(config.n_embd, eps=config.layer_norm_epsilon, device=device)
        if device is None or torch.device(device).type != "meta":
            nn.init.normal_(self.wte.weight, std=0.02)
            nn.init.normal_(self.wpe.weight, std=0.01)

    def linear_layers(self) -> list[LoraConv1D]:
        return [m for m in self.modules() if isinstance(m, LoraConv1D)]

    def add_lora(self, rank: int, alpha: float, dropout: float) -> None:
        """Freezes every backbone parameter and adds adapters to all linear layers."""
        for p in self.parameters():
            p.requires_grad_(False)
        for layer in self.linear_layers():
            layer.add_lora(rank, alpha, dropout)

    def forward(self, embeds: torch.Tensor, valid: torch.Tensor) -> torch.Tensor:
        """REQUIRES: embeds [B, T, n_embd]; valid [B, T] bool marks real tokens (padding at the
        end of a row), at most n_positions per row. Causal attention; the final hidden states."""
        return self.extend(embeds, valid)[0]

    def extend(self, embeds: torch.Tensor, valid: torch.Tensor | None = None,
               cache: "KvCache | None" = None):
        """forward() continuing each row's sequence: `cache` (from an earlier call; None at the
        start) holds the keys and values of the row's earlier tokens, padding included, so a
        row's real tokens take the next positions whatever the padding. `valid` None: all real.
        Returns (hidden states of `embeds`, the cache including them)."""
        b, t, _ = embeds.shape
        device = embeds.device
        if valid is None:
            valid = torch.ones(b, t, dtype=torch.bool, device=device)
        start = 0 if cache is None else cache.key_valid.shape[1]
        before = torch.zeros(b, dtype=torch.int64, device=device) if cache is None else cache.count
        positions = (before[:, None] + valid.cumsum(1) - 1).clamp(min=0)
        count = before + valid.sum(1)
        if int(count.max()) > self.config.n_positions:
            raise NetllmError(f"backbone: {int(count.max())} tokens exceed n_positions "
                              f"{self.config.n_positions}")
        key_valid = valid if cache is None else torch.cat([cache.key_valid, valid], dim=1)
        causal = torch.ones(t, start + t, dtype=torch.bool, device=device).tril(start)
        mask = (causal[None] & key_valid[:, None, :])[:, None]  # [B, 1, T, start + T]
        x = embeds + self.wpe(positions)
        real = None if bool(valid.all()) else valid
        layers = []
        for i, block in enumerate(self.h):
            x, present = block(x, mask, real, None if cache is None else cache.layers[i])
            layers.append(present)
        return self.ln_f(x), KvCache(layers, key_valid, count)


@dataclass
class KvCache:
    """Per layer (keys, values) [B, heads, S, head size]; which of the S are real tokens; the
    real tokens per row (the next position)."""
    layers: list
    key_valid: torch.Tensor
    count: torch.Tensor

    def rows(self, index: torch.Tensor) -> "KvCache":
        """The cache of the rows `index` only."""
        return KvCache([(k[index], v[index]) for k, v in self.layers], self.key_valid[index],
                       self.count[index])


def backbone_parameter_count(config: Gpt2Config) -> int:
    """Parameters of the plain backbone (no adapters), counted without allocating them."""
    return sum(p.numel() for p in Gpt2(config, device="meta").parameters())


_IGNORED_SUFFIXES = (".attn.bias", ".attn.masked_bias")  # causal-mask buffers of old checkpoints


def load_hf_gpt2(directory: str, device="cpu") -> Gpt2:
    """A GPT-2 from a HuggingFace-layout folder: config.json and pytorch_model.bin (GPT2Model's
    names, or GPT2LMHeadModel's with the `transformer.` prefix; lm_head is ignored). Every
    backbone tensor must be present with its shape; errors name the file and tensor."""
    config = Gpt2Config.from_json(os.path.join(directory, "config.json"))
    weights = os.path.join(directory, "pytorch_model.bin")
    if not os.path.exists(weights):
        raise NetllmError(f"{weights}: missing (only the PyTorch .bin layout is read)")
    try:
        state = torch.load(weights, map_location="cpu")
    except Exception as e:  # torch raises many types for a bad file
        raise NetllmError(f"{weights}: not a PyTorch state dict: {e}".splitlines()[0]) from None
    if not isinstance(state, dict):
        raise NetllmError(f"{weights}: not a PyTorch state dict")
    state = {k.removeprefix("transformer."): v for k, v in state.items()
             if not k.startswith("lm_head.") and not k.endswith(_IGNORED_SUFFIXES)}
    model = Gpt2(config)
    expected = model.state_dict()
    for name, tensor in expected.items():
        if name not in state:
            raise NetllmError(f"{weights}: tensor {name} missing")
        if tuple(state[name].shape) != tuple(tensor.shape):
            raise NetllmError(f"{weights}: tensor {name}: expected shape {list(tensor.shape)}, "
                              f"got {list(state[name].shape)}")
    unknown = sorted(set(state) - set(expected))
    if unknown:
        raise NetllmError(f"{weights}: unexpected tensor {unknown[0]}")
    model.load_state_dict({k: state[k].float() for k in expected})
    return model.to(device)
