set -e
D=$1
rm -rf $D; mkdir -p $D
for m in cora.mtx.gz ffn1.smtx.gz cond-mat.mtx.gz Maragal_6.mtx.gz; do
  n=${m%%.*}
  build/bin/spperm-compile .gpu/subh/bench/$m -o $D/$n.hbp.spp --format hbp --data external -q --no-library-check
done
build/bin/spperm-compile .gpu/subh/bench/cond-mat.mtx.gz -o $D/cond-mat.hbp.bf16.spp --format hbp --dtype bf16 --data external -q --no-library-check
build/bin/spperm-compile .gpu/subh/bench/Maragal_6.mtx.gz -o $D/Maragal_6.csr.spp --format csr --strategy lpt --data external -q --no-library-check
build/bin/spperm-compile .gpu/subh/bench/ffn1.smtx.gz -o $D/ffn1.bell.spp --format bell --data external -q --no-library-check
build/bin/spperm-compile .gpu/subh/bench/cond-mat.mtx.gz -o $D/cond-mat.bell.spp --format bell --data external -q --no-library-check
