#!/usr/bin/env bash
# One prepared run on a machine with an NVIDIA GPU, CuPy and PyTorch:
#   benchmarks/gpu/device_check.sh OUT_DIR [SECONDS]
# In this order, each step with its own time limit, all within SECONDS (default 420):
# 1. the device and the versions; 2. benchmarks.gpu.run in float64 against PyTorch autograd
# on the same GPU; 3. the CuPy test table on the real CuPy (CPU CI runs its emulated half);
# 4. benchmarks.gpu.run in float32; 5. the code of examples/05_gpu_cupy.ipynb; 6. CuPy's
# signatures (for the CPU emulation: OUT_DIR/cupy_signatures.txt); 7. benchmarks.gpu.fusion;
# 8. benchmarks.gpu.overhead (host time per call) in float64 and float32. A step that would
# start with under 20 s left is skipped, and says so.
set -u
out=${1:?usage: benchmarks/gpu/device_check.sh OUT_DIR [SECONDS]}
deadline=$(( $(date +%s) + ${2:-420} ))
mkdir -p "$out"
export PYTHONUNBUFFERED=1
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
log="$out/run.log"
left() { echo $(( deadline - $(date +%s) )); }
step() {  # step LIMIT NAME COMMAND...: run COMMAND for at most LIMIT s (less if time is short)
    local limit=$1 name=$2; shift 2
    local budget=$(left)
    (( budget < limit )) && limit=$budget
    if (( limit < 20 )); then echo "== $name: skipped, ${budget}s left" | tee -a "$log"; return; fi
    echo "== $(date +%T) $name (at most ${limit}s)" | tee -a "$log"
    timeout "$limit" "$@" 2>&1 | tee -a "$log"
    echo "== $name: exit ${PIPESTATUS[0]}" | tee -a "$log"
}
step 30 "device and versions" bash -c 'nvidia-smi -L; python3 -c "
import sys, numpy, scipy, gast, cupy
print(sys.version.split()[0], \"numpy\", numpy.__version__, \"scipy\", scipy.__version__,
      \"gast\", gast.__version__, \"cupy\", cupy.__version__)
import torch; print(\"torch\", torch.__version__, \"CUDA\", torch.version.cuda)"'
step 150 "benchmarks.gpu.run float64" python3 -m benchmarks.gpu.run --out "$out/f64"
workers=$(( $(nproc) < 16 ? $(nproc) : 16 ))
step 200 "CuPy test table on the GPU" python3 -m pytest -q -p no:cacheprovider -p no:benchmark \
    -n "$workers" \
    -rfE --tb=short --durations=15 --junitxml="$out/junit.xml" -k "not emulated" \
    tests/test_cupy.py tests/test_cupy_hvp.py tests/test_cupy_scipy.py
step 90 "benchmarks.gpu.run float32" python3 -m benchmarks.gpu.run --dtype float32 \
    --peers s2sad-cupy,torch-cuda --out "$out/f32"
step 60 "examples/05_gpu_cupy.ipynb's code" python3 -c '
import json, os, sys, types
os.chdir("examples")
sys.path.insert(0, ".")
try:
    import IPython.display
except ImportError:  # (the notebook shows HTML: not needed to run it)
    ipython, display = types.ModuleType("IPython"), types.ModuleType("IPython.display")
    display.HTML, ipython.display = (lambda *a, **k: None), display
    sys.modules.update({"IPython": ipython, "IPython.display": display})
names = {}
for cell in json.load(open("05_gpu_cupy.ipynb"))["cells"]:
    if cell["cell_type"] == "code":
        exec("".join(cell["source"]), names)
print("notebook 05 ran on:", names.get("gpu"))'
step 30 "CuPy's signatures" bash -c "python3 tests/cupy_cases/fake_cupy.py --signatures \
    > '$out/cupy_signatures.txt' && wc -l '$out/cupy_signatures.txt'"
step 45 "benchmarks.gpu.fusion" python3 -m benchmarks.gpu.fusion
step 60 "benchmarks.gpu.overhead" python3 -m benchmarks.gpu.overhead
step 40 "benchmarks.gpu.overhead float32" python3 -m benchmarks.gpu.overhead --dtype float32 \
    --only "RNN T=50" --top 12
echo "== $(date +%T) done, $(left)s to spare" | tee -a "$log"
