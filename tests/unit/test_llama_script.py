"""scripts/llama.sh builds llama-cpp-python portably (issue 32): a native build on a CPU with
AMX died on its first completion, and its wheel was reused from the cache. The build flags
never ask for -march=native, AVX-512 or AMX, and the wheel cache key changes with them."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "llama.sh"


def _key(**env: str) -> tuple[str, str]:
    out = subprocess.run(["bash", str(SCRIPT), "key"], env={**os.environ, **env},
                         capture_output=True, text=True, check=True, timeout=60).stdout
    key, flags = out.strip().splitlines()
    return key, flags


def test_the_build_is_portable_and_keyed_by_its_flags() -> None:
    v3_key, v3 = _key(KGMEM_LLAMA_CPU="x86-64-v3")
    base_key, base = _key(KGMEM_LLAMA_CPU="baseline")
    for flags in (v3, base):
        assert "-DGGML_NATIVE=OFF" in flags and "GGML_NATIVE=ON" not in flags
        for isa in ("AVX512", "AVX512_VBMI", "AVX512_VNNI", "AVX512_BF16", "AMX_TILE",
                    "AMX_INT8", "AMX_BF16"):
            assert f"-DGGML_{isa}=OFF" in flags
    assert "-DGGML_AVX2=ON" in v3 and "-DGGML_AVX2=OFF" in base
    assert v3_key != base_key and "x86-64-v3" in v3_key and "baseline" in base_key
    assert _key(KGMEM_LLAMA_CPU="baseline", KGMEM_LLAMA_VERSION="0.0.1")[0] != base_key
