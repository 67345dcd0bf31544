"""all-MiniLM-L6-v2 forward pass in plain numpy (no torch, no onnxruntime).

It is written independently of the ONNX graph (:mod:`kgmem.embed.onnx_graph`) and
serves two purposes:

* the **reference** the ONNX backend is tested against (and that is itself pinned to
  published sentence-transformers / Hugging Face values in the tests);
* a **fallback** embedder when onnxruntime is unavailable (about 5x slower).

Model: BERT (6 layers, hidden 384, 12 heads, GELU-erf, post-LayerNorm, eps 1e-12),
then mean pooling over the attention mask, then L2 normalisation -- exactly the
sentence-transformers modules Transformer -> Pooling(mean) -> Normalize.
"""

from __future__ import annotations

import threading

import numpy as np

from .base import EmbedderBase, l2_normalize
from .batching import embed_batched
from .resources import DIM, MAX_SEQ_LENGTH, MODEL_NAME, load_config, model_dir

# Abramowitz & Stegun 7.1.26 (|error| < 1.5e-7): numpy has no erf and scipy is not a
# dependency. The error is below float32 resolution of GELU's output.
_P = 0.3275911
_A = (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)


def _erf(x: np.ndarray) -> np.ndarray:
    s = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + _P * a)
    poly = t * (_A[0] + t * (_A[1] + t * (_A[2] + t * (_A[3] + t * _A[4]))))
    return s * (1.0 - poly * np.exp(-a * a))


def _gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + _erf(x * np.float32(1 / np.sqrt(2.0)).astype(x.dtype)))


def _layer_norm(x: np.ndarray, g: np.ndarray, b: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * g + b


class NumpyMiniLM(EmbedderBase):
    """Pure-numpy all-MiniLM-L6-v2. ``NumpyMiniLM().embed(["hi"])`` -> (1, 384) float32.

    ``dtype=np.float64`` computes in double precision (a tighter reference, ~2x slower).
    Weights load lazily on first use.
    """

    name = MODEL_NAME
    dim = DIM

    def __init__(
        self,
        *,
        batch_size: int = 64,
        max_length: int = MAX_SEQ_LENGTH,
        dtype: type = np.float32,
    ) -> None:
        self.batch_size = batch_size
        self.max_length = max_length
        self.dtype = np.dtype(dtype)
        self._w: dict[str, np.ndarray] | None = None
        self._lock = threading.Lock()

    def _weights(self) -> dict[str, np.ndarray]:
        with self._lock:
            if self._w is None:
                from safetensors.numpy import load_file

                cfg = load_config()
                self.n_layers = int(cfg["num_hidden_layers"])
                self.n_heads = int(cfg["num_attention_heads"])
                self.eps = float(cfg["layer_norm_eps"])
                raw = load_file(str(model_dir() / "model.safetensors"))
                self._w = {
                    k: v.astype(self.dtype) for k, v in raw.items() if v.dtype.kind == "f"
                }
            return self._w

    # -- the network -----------------------------------------------------------------
    def hidden_states(
        self,
        input_ids: np.ndarray,
        attention_mask: np.ndarray,
        token_type_ids: np.ndarray | None = None,
    ) -> np.ndarray:
        """Last hidden state, shape (batch, seq, 384) (Hugging Face ``last_hidden_state``)."""
        w = self._weights()
        ids = np.asarray(input_ids, dtype=np.int64)
        mask = np.asarray(attention_mask, dtype=np.int64)
        tt = np.zeros_like(ids) if token_type_ids is None else np.asarray(token_type_ids)
        bsz, seq = ids.shape
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][np.arange(seq)][None, :, :]
            + w["embeddings.token_type_embeddings.weight"][tt]
        )
        x = _layer_norm(
            x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], self.eps
        )
        heads = self.n_heads
        hd = x.shape[-1] // heads
        scale = self.dtype.type(1.0 / np.sqrt(hd))
        # additive mask over keys: 0 where attended, a huge negative where padding
        bias = ((1 - mask) * np.finfo(self.dtype).min / 2).astype(self.dtype)[:, None, None, :]
        for i in range(self.n_layers):
            p = f"encoder.layer.{i}."

            def lin(t: np.ndarray, name: str, p: str = p) -> np.ndarray:
                return t @ w[p + name + ".weight"].T + w[p + name + ".bias"]

            def split(t: np.ndarray) -> np.ndarray:
                return t.reshape(bsz, seq, heads, hd).transpose(0, 2, 1, 3)

            q = split(lin(x, "attention.self.query"))
            k = split(lin(x, "attention.self.key"))
            v = split(lin(x, "attention.self.value"))
            scores = (q @ k.transpose(0, 1, 3, 2)) * scale + bias
            scores = scores - scores.max(axis=-1, keepdims=True)
            probs = np.exp(scores)
            probs /= probs.sum(axis=-1, keepdims=True)
            ctx = (probs @ v).transpose(0, 2, 1, 3).reshape(bsz, seq, heads * hd)
            x = _layer_norm(
                lin(ctx, "attention.output.dense") + x,
                w[p + "attention.output.LayerNorm.weight"],
                w[p + "attention.output.LayerNorm.bias"],
                self.eps,
            )
            h = _gelu(lin(x, "intermediate.dense"))
            x = _layer_norm(
                lin(h, "output.dense") + x,
                w[p + "output.LayerNorm.weight"],
                w[p + "output.LayerNorm.bias"],
                self.eps,
            )
        return x

    def mean_pooled(self, input_ids: np.ndarray, attention_mask: np.ndarray) -> np.ndarray:
        """Mean of the token vectors where the mask is 1 (before normalisation)."""
        h = self.hidden_states(input_ids, attention_mask)
        m = np.asarray(attention_mask, dtype=self.dtype)[:, :, None]
        return (h * m).sum(axis=1) / np.maximum(m.sum(axis=1), 1e-9)

    def forward(self, input_ids: np.ndarray, attention_mask: np.ndarray) -> np.ndarray:
        return l2_normalize(self.mean_pooled(input_ids, attention_mask))

    def _embed(self, texts: list[str]) -> np.ndarray:
        return embed_batched(
            texts,
            self.forward,
            dim=self.dim,
            batch_size=self.batch_size,
            max_length=self.max_length,
        )
