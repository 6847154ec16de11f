nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p /tmp/xl && tar xf .gpu/xlayers.tar -C /tmp/xl
(cd tools/lab && nvcc -O3 -arch=sm_90 -std=c++17 -lineinfo -o /tmp/xtile xtile_proto.cu) &
export SPPERM_CMAKE_ARGS=-DCMAKE_PREFIX_PATH=$PWD/.gpu/deps
. tools/scripts/shared_zlib.sh
B=build-gpu-py
cmake -G Ninja -S . -B $B -DCMAKE_BUILD_TYPE=Release -DSPPERM_ENABLE_COMPILER=OFF -DSPPERM_ENABLE_TESTS=OFF -DPython_EXECUTABLE=$(command -v python3) -Dnanobind_DIR=$PWD/.gpu/deps/nanobind/cmake ${ZLIB_FLAGS[@]} $SPPERM_CMAKE_ARGS > $OUT/cfg.log 2>&1 && cmake --build $B --target _core -j 16 > $OUT/build.log 2>&1; echo build rc=$?
wait
export PYTHONPATH=$PWD/$B/python
mkdir -p /tmp/w && tar xJf .gpu/pybench.tar.xz -C /tmp/w
export SPRT_TUNING_CACHE=$OUT/tuning.json
cat > /tmp/one.py <<'P'
import sys, glob, torch, spperm
ks = [int(k) for k in sys.argv[2].split(",")]
for path in sorted(glob.glob(sys.argv[1])):
    pkg = spperm.load(path)
    for k in ks:
        b = torch.ones(pkg[0].cols, k, device="cuda")
        c = pkg(b)
        torch.cuda.synchronize()
        print(path.split("/")[-1], k, float(c.sum()))
P
python3 /tmp/one.py "/tmp/w/pybench/*.spp" 32,128,512 > $OUT/decide.log 2>&1; echo decide rc=$?
RN=$(ls /tmp/w/pybench/*group2_3_1*.spp)
timeout 120 ncu --set full -c 8 python3 /tmp/one.py "$RN" 32 > $OUT/ncu-spperm-rn50-k32.txt 2>&1
XTILE_KS=32 XTILE_ONLY=t8.v1.n512.r8 timeout 60 ncu --set full --import-source yes -k regex:xtile -c 1 /tmp/xtile /tmp/xl/*group2_3_1* > $OUT/ncu-xtile-rn50-k32.txt 2>&1
XTILE_KS=32 XTILE_ONLY=t8.v1.n512.r8 timeout 60 ncu --section WarpStateStats --section SourceCounters -k regex:xtile -c 1 --page source --print-source sass /tmp/xtile /tmp/xl/*group2_3_1* > $OUT/ncu-xtile-src.txt 2>&1
echo done; grep -E "^  [a-zA-Z_].*\(|Duration" $OUT/ncu-spperm-rn50-k32.txt | head -20
