#!/bin/bash
# The Hopper study's device run: `tritonscope bench` over the tuned samples' candidate variants
# and the notes' own samples, each checked against torch and timed beside it in one run.
# Run from a directory holding tritonscope/ and sample_kernels/ (the device copy), e.g.
#   OUT=/tmp/out STAGE=1 bash benchmarks/hopper_study.sh
# STAGE picks the set of variants: 1 explores, final runs the chosen defaults only, gluon the
# Gluon attention's first form, gluon-ws its warp-specialized one.
set -o pipefail
export PYTHONUNBUFFERED=1 COLUMNS=${COLUMNS:-200}
ts() { python3 -m tritonscope --no-pager bench "$@"; }
{
python3 -c 'import triton, torch; print("triton", triton.__version__, "torch", torch.__version__, torch.cuda.get_device_name())'
case "${STAGE:-final}" in
1)
  ts sample:matmul_tma --size 4096 --size 8192 --vary BLOCK_SIZE_N=128,256 --vary num_stages=3,4 --vary FLATTEN=False,True
  ts sample:matmul_tma --size 4096 --vary BLOCK_SIZE_N=128 --vary num_warps=4 --vary num_stages=4,5
  ts sample:fused_attention_tma --size 4096 --input head_dim=64 --vary BLOCK_N=64,128 --vary num_stages=2,3,4
  ts sample:fused_attention_tma --size 4096 --input head_dim=64 --vary BLOCK_M=64 --vary num_warps=4 --vary num_stages=3
  ts sample:fused_attention_tma --size 4096 --input head_dim=128 --vary BLOCK_N=64,128 --vary num_stages=2,3
  ;;
2)
  ts sample:matmul_tma --size 4096 --size 8192 --vary num_stages=3,4 --vary FLATTEN=False,True --vary GROUP_SIZE_M=8,16
  ts sample:fused_attention_tma --size 4096 --input head_dim=64 --vary BLOCK_M=64 --vary num_warps=4 --vary BLOCK_N=64,128 --vary num_stages=2,3,4
  ts sample:fused_attention_tma --size 4096 --input head_dim=128 --vary BLOCK_M=64 --vary num_warps=4 --vary BLOCK_N=64,128 --vary num_stages=2,3
  ;;
4)
  # explain's occupancy what-if: --maxnreg 128 fits two 8-warp blocks per SM without spilling
  ts sample:fused_attention_tma --size 4096 --input head_dim=128 --vary BLOCK_N=64 --vary num_stages=2 --vary maxnreg=128,255
  ts sample:fused_attention_tma --size 4096 --input head_dim=64 --vary BLOCK_M=128 --vary num_warps=8 --vary BLOCK_N=64,128 --vary num_stages=2,3 --vary maxnreg=128
  ts sample:fused_attention_tma --size 4096 --input head_dim=64
  ts sample:fused_attention_tma --size 4096 --input head_dim=128
  ts sample:fused_attention_tma --size 4096 --input head_dim=128 --vary BLOCK_N=64 --vary num_stages=2 --vary maxnreg=128
  ;;
gluon)
  # The Gluon attention (FlashAttention-3's intra-warpgroup pipelining), beside the TMA sample.
  ts sample:fused_attention_gluon --size 4096 --vary BLOCK_N=64,128
  ts sample:fused_attention_gluon --size 4096 --input head_dim=64 --vary BLOCK_N=64,128
  ts sample:fused_attention_tma --size 4096 --input head_dim=128
  ;;
gluon-ws)
  # The warp-specialized Gluon attention (a copying warp, two warp groups taking turns): its
  # buffers and ping-pong at both head widths, its defaults, and the TMA sample in the same run.
  ts sample:fused_attention_gluon --size 4096 --vary BUFFERS=2,3 --vary PING_PONG=True,False
  ts sample:fused_attention_gluon --size 4096 --input head_dim=64 --vary BUFFERS=2,3,4,6
  ts sample:fused_attention_gluon --size 4096
  ts sample:fused_attention_gluon --size 4096 --input head_dim=64
  ts sample:fused_attention_tma --size 4096 --input head_dim=128
  ts sample:fused_attention_tma --size 4096 --input head_dim=64
  ;;
final)
  # The tour's steps (docs/build_tour.py reads this file back): the notes' matmul, then the TMA one
  # from its first to its tuned form; the attention samples beside their TMA counterparts.
  ts sample:matmul --size 4096 --size 8192
  ts sample:matmul_tma --size 4096 --size 8192 --vary BLOCK_SIZE_N=128,256 --vary num_stages=3,4 --vary FLATTEN=False,True
  ts sample:matmul_tma --size 4096 --size 8192
  ts sample:fused_attention --size 4096 --input head_dim=64
  ts sample:fused_attention_tma --size 4096 --input head_dim=64
  ts sample:fused_attention_tma --size 4096 --input head_dim=64 --vary BLOCK_M=64,128 --vary num_warps=4,8 --vary num_stages=2,3
  ts sample:fused_attention --size 4096 --input head_dim=128
  ts sample:fused_attention_tma --size 4096 --input head_dim=128
  ts sample:fused_attention_tma --size 4096 --input head_dim=128 --vary BLOCK_N=64 --vary num_stages=3,4,5
  ;;
esac
} 2>&1 | tee "$OUT/study-${STAGE:-final}.txt"
