"""A corpus of real library kernels: every @triton.jit kernel of liger-kernel's GPU ops.

Each row is what a kernel engineer would type to look at one of liger's kernels: only the
constexpr values and the argument types that liger's own launcher passes, read from its
call site. The shapes are one model's: a Llama-3-8B-like layer (hidden 4096, MLP 14336,
vocabulary 128256, 32 query and 8 key/value heads of 128, 4 x 2048 tokens = 8192 rows, bf16
activations, fp32 statistics, int64 labels), liger's num_warps choices for an H100 (132
SMs, so a backward pass over 8192 rows gives each program 63 rows), and smaller shapes
where liger's kernels are for other models (named in the row's comment).

Scalars that are not given keep the type tritonscope infers (an int stride is i32, as a
launch of a small tensor gives). Pointers liger passes as None are given as None.

liger-kernel is installed pinned and without its dependencies (CI has the CPU torch):
    pip install --no-deps liger-kernel==0.8.5
Not covered: liger_kernel/ops/backends/_ascend (Huawei Ascend NPU kernels, written for
triton-ascend: several import triton.language.extra.cann), and `_keyed_add` in
fused_moe_kernels.py, which is the combine function of a tl.associative_scan, not a kernel.
"""

from __future__ import annotations

import ast
import importlib.metadata
import importlib.util
import json
import os
import shlex
from pathlib import Path
from typing import NamedTuple

import pytest

LIGER_VERSION = "0.8.5"
TARGETS = ("sm90", "gfx942")


class Case(NamedTuple):
    file: str  # under liger_kernel/ops/
    kernel: str
    flags: str  # as typed on the command line
    # The compiler's message where Triton cannot compile the kernel (a newer Triton needed, or a bug in liger):
    # the test then expects exit 1 with this message, never a skip.
    compile_error: str = ""


# Shorthands used below: H = hidden 4096 (BLOCK_SIZE 4096, 8 warps, as liger's calculate_settings
# picks); I = MLP width 14336 (BLOCK_SIZE 16384, 16 warps); V = vocabulary 128256.
CASES = [
    # attn_res.py: attention over 8 residual blocks of width H.
    Case("attn_res.py", "_attn_res_fwd_kernel",
         "--dtype bf16 -a Alpha_ptr=*fp32 -a RSTD_ptr=*fp32 -c eps=1e-6 -c BLOCK_D=4096 -c MAX_BLOCKS=8 -w 8"),
    Case("attn_res.py", "_attn_res_bwd_kernel",
         "--dtype bf16 -a Alpha_ptr=*fp32 -a RSTD_ptr=*fp32 -a dW_query_ptr=*fp32 -a dW_norm_ptr=*fp32 -a eps=fp32 "
         "-c BLOCK_D=4096 -c MAX_BLOCKS=8 -w 8"),
    # cross_entropy.py: LigerCrossEntropyLoss() with its defaults (no weight, no z-loss, no softcap: those are None).
    Case("cross_entropy.py", "liger_cross_entropy_kernel",
         "-a X_ptr=*bf16 -a Y_ptr=*i64 -a loss_ptr=*bf16 -a weight_ptr=None -a z_loss_ptr=None "
         "-a token_accuracy_ptr=None -a predicted_tokens_ptr=None -a weight_sum=fp32 -a ignore_index=-100 "
         "-a softcap=None -c lse_square_scale=0.0 -c label_smoothing=0.0 -c reduction=mean -c RETURN_Z_LOSS=false "
         "-c RETURN_TOKEN_ACCURACY=false -c RETURN_PREDICTED_TOKENS=false -c BLOCK_SIZE=32768 -c HAS_WEIGHT=false "
         "-c HAS_SOFTCAPPING=false -c HAS_GRADIENTS=true -w 32"),
    # dyt.py: autotuned on N; config 0 (BLOCK_N=1024).
    Case("dyt.py", "_dyt_fwd_kernel", "--dtype bf16 -c HAVE_BETA=true -c N=4096"),
    Case("dyt.py", "_dyt_bwd_kernel", "--dtype bf16 -a DA=*fp32 -a DG=*fp32 -a DB=*fp32 -c HAVE_BETA=true -c N=4096"),
    # experimental/embedding.py: a V x H table looked up by int64 token ids.
    Case("experimental/embedding.py", "embedding_forward_kernel",
         "--dtype bf16 -a indices_ptr=*i64 -c embedding_dim=4096 -c BLOCK_SIZE_M=128 -c BLOCK_SIZE_N=128"),
    Case("experimental/embedding.py", "embedding_backward_kernel",
         "--dtype bf16 -a indices_ptr=*i64 -c embedding_dim=4096 -c BLOCK_SIZE_M=128 -c BLOCK_SIZE_N=128"),
    # experimental/mm_int8int2.py: int8 activations x 2-bit weights packed four to a uint8, int32 out.
    Case("experimental/mm_int8int2.py", "matmul_kernel", "-a a_ptr=*i8 -a b_ptr=*u8 -a c_ptr=*i32 -c K=4096"),
    # fused_add_rms_norm.py: casting_mode 0 is "llama"; X_dtype is the torch dtype liger maps to tl.bfloat16.
    Case("fused_add_rms_norm.py", "_fused_add_rms_norm_forward_kernel",
         "--dtype bf16 -a RSTD_ptr=*fp32 -a eps=fp32 -a offset=fp32 -c casting_mode=0 -c BLOCK_SIZE=4096 -w 8 -s 2"),
    Case("fused_add_rms_norm.py", "_fused_add_rms_norm_backward_kernel",
         "--dtype bf16 -a RSTD_ptr=*fp32 -a dW_ptr=*fp32 -a n_cols=i32 -a offset=fp32 -c X_dtype=tl.bfloat16 "
         "-c rows_per_program=63 -c casting_mode=0 -c BLOCK_SIZE=4096 -c has_dS_out=true -w 8 -s 2"),
    # fused_ce_tvd.py: V-wide rows streamed in tiles of 16384.
    Case("fused_ce_tvd.py", "_fused_ce_tvd_forward_kernel",
         "--dtype fp32 -a student_ptr=*bf16 -a teacher_ptr=*bf16 -a target_ptr=*i64 -c ignore_index=-100 "
         "-c BLOCK_SIZE=16384 -w 16"),
    Case("fused_ce_tvd.py", "_fused_ce_tvd_backward_kernel",
         "--dtype fp32 -a student_ptr=*bf16 -a teacher_ptr=*bf16 -a target_ptr=*i64 -a grad_student_ptr=*bf16 "
         "-c ignore_index=-100 -c BLOCK_SIZE=16384 -w 16"),
    # fused_linear_kl_div.py: launched from backends/_triton/kl_div.py with labels.
    Case("fused_linear_kl_div.py", "_kl_div_kernel",
         "-a X_ptr=*bf16 -a Q_ptr=*bf16 -a loss_ptr=*fp32 -a label_ptr=*i64 -a temperature=fp32 -a eps=fp32 "
         "-a scale=fp32 -c ignore_index=-100 -c BLOCK_SIZE=32768 -c HAS_LABEL=true -w 32"),
    # fused_moe_kernels.py: a Qwen3-30B-A3B-like MoE: 128 experts, top-8, hidden 2048, expert width 768.
    # The routing kernels work on int32 index arrays only; the GEMMs are autotuned (config 0).
    Case("fused_moe_kernels.py", "_moe_router_histogram_kernel",
         "--dtype i32 -c E=128 -c TOKENS_PER_TILE=128 -c K_POW2=8 -c K=8 -c E_POW2=128"),
    Case("fused_moe_kernels.py", "_moe_router_prefix_sum_kernel",
         "--dtype i32 -c E=128 -c BLOCK_M=128 -c BLOCK_N=128 -c BLOCK_M_TOKEN=64"),
    Case("fused_moe_kernels.py", "_moe_router_scatter_kernel",
         "--dtype i32 -c K_POW2=8 -c K=8 -c TOKENS_PER_BLOCK=128 -c BLOCK_M_TOKEN=64"),
    Case("fused_moe_kernels.py", "_fused_up_proj_swiglu_kernel",
         "--dtype bf16 -a x_gather_idx_ptr=*i32 -a expert_start_ptr=*i32 -a tile_row_start_ptr=*i32 "
         "-a tile_expert_ptr=*i32 -c H_dim=2048 -c I_dim=768 -c stride_x_H=1 -c stride_w_K=1 -c stride_pre_N=1 "
         "-c stride_post_N=1 -c BLOCK_M=64"),
    Case("fused_moe_kernels.py", "_fused_down_proj_kernel",
         "--dtype bf16 -a expert_start_ptr=*i32 -a tile_row_start_ptr=*i32 -a tile_expert_ptr=*i32 -c H_dim=2048 "
         "-c I_dim=768 -c stride_post_I=1 -c stride_w_I=1 -c stride_Y_H=1 -c BLOCK_M=64"),
    Case("fused_moe_kernels.py", "_token_gather_weighted_sum_kernel",
         "--dtype bf16 -a s_rev_ptr=*i32 -c H_dim=2048 -c K_dim=8 -c stride_Y_H=1 -c stride_out_H=1 "
         "-c w_is_None=false"),
    Case("fused_moe_kernels.py", "_moe_bwd_down_proj_kernel",
         "--dtype bf16 -a x_gather_idx_ptr=*i32 -a s_scatter_idx_ptr=*i32 -a expert_start_ptr=*i32 "
         "-a tile_row_start_ptr=*i32 -a tile_expert_ptr=*i32 -c H_dim=2048 -c I_dim=768 -c stride_dO_H=1 "
         "-c stride_w_I=1 -c stride_pre_N=1 -c stride_d_pre_N=1 -c stride_wact_I=1 -c BLOCK_M=64"),
    Case("fused_moe_kernels.py", "_moe_bwd_dW2_kernel",
         "--dtype bf16 -a x_gather_idx_ptr=*i32 -a expert_start_ptr=*i32 -c H_dim=2048 -c I_dim=768 "
         "-c stride_wact_I=1 -c stride_dout_H=1 -c stride_dW2_I=1"),
    Case("fused_moe_kernels.py", "_moe_bwd_dX_expanded_kernel",
         "--dtype bf16 -a expert_start_ptr=*i32 -a tile_row_start_ptr=*i32 -a tile_expert_ptr=*i32 -c H_dim=2048 "
         "-c I_dim=768 -c stride_d_pre_N=1 -c stride_w_K=1 -c stride_dxe_H=1 -c BLOCK_M=64"),
    Case("fused_moe_kernels.py", "_moe_bwd_dW1_kernel",
         "--dtype bf16 -a x_gather_idx_ptr=*i32 -a expert_start_ptr=*i32 -c H_dim=2048 -c I_dim=768 "
         "-c stride_x_H=1 -c stride_d_pre_N=1 -c stride_dW1_H=1"),
    # fused_neighborhood_attention.py: 2 x 8 heads x 1024 positions of 64, a 7-wide window. These kernels take
    # num_stages and num_warps as constexpr parameters (passed positionally, so the launch options keep defaults).
    Case("fused_neighborhood_attention.py", "_neighborhood_mask_kernel",
         "-c seq_len=1024 -c kernel_size=7 -c dilation=1 -c BLOCK_SIZE=1024 -c num_stages=4 -c num_warps=4"),
    Case("fused_neighborhood_attention.py", "_fused_neighborhood_attention_qk_kernel",
         "--dtype bf16 -a mask_ptr=*fp32 -c batch_size=2 -c num_heads=8 -c seq_len=1024 -c head_dim=64 "
         "-c scale=0.125 -c kernel_size=7 -c dilation=1 -c BLOCK_SIZE_M=64 -c BLOCK_SIZE_N=64 -c BLOCK_SIZE_K=64 "
         "-c num_stages=4 -c num_warps=4"),
    Case("fused_neighborhood_attention.py", "_fused_neighborhood_attention_av_kernel",
         "--dtype bf16 -c batch_size=2 -c num_heads=8 -c seq_len=1024 -c head_dim=64 -c BLOCK_SIZE_M=64 "
         "-c BLOCK_SIZE_N=64 -c BLOCK_SIZE_K=64 -c num_stages=4 -c num_warps=4"),
    Case("fused_neighborhood_attention.py", "_fused_neighborhood_attention_grad_qk_kernel",
         "--dtype bf16 -c batch_size=2 -c num_heads=8 -c seq_len=1024 -c head_dim=64 -c scale=0.125 "
         "-c BLOCK_SIZE_M=64 -c BLOCK_SIZE_N=64 -c BLOCK_SIZE_K=64 -c num_stages=4 -c num_warps=4"),
    Case("fused_neighborhood_attention.py", "_fused_neighborhood_attention_grad_k_kernel",
         "--dtype bf16 -c batch_size=2 -c num_heads=8 -c seq_len=1024 -c head_dim=64 -c scale=0.125 "
         "-c BLOCK_SIZE_M=64 -c BLOCK_SIZE_N=64 -c BLOCK_SIZE_K=64 -c num_stages=4 -c num_warps=4"),
    Case("fused_neighborhood_attention.py", "_fused_neighborhood_attention_grad_v_kernel",
         "--dtype bf16 -c batch_size=2 -c num_heads=8 -c seq_len=1024 -c head_dim=64 -c BLOCK_SIZE_M=64 "
         "-c BLOCK_SIZE_N=64 -c BLOCK_SIZE_K=64 -c num_stages=4 -c num_warps=4"),
    Case("fused_neighborhood_attention.py", "_fused_neighborhood_attention_grad_attn_kernel",
         "--dtype bf16 -c batch_size=2 -c num_heads=8 -c seq_len=1024 -c head_dim=64 -c BLOCK_SIZE_M=64 "
         "-c BLOCK_SIZE_N=64 -c BLOCK_SIZE_K=64 -c num_stages=4 -c num_warps=4"),
    # geglu.py: rows of width I.
    Case("geglu.py", "_geglu_tanh_forward_kernel", "--dtype bf16 -c n_cols=14336 -c BLOCK_SIZE=16384 -w 16"),
    Case("geglu.py", "_geglu_tanh_backward_kernel", "--dtype bf16 -c n_cols=14336 -c BLOCK_SIZE=16384 -w 16"),
    # group_norm.py: 32 groups of 16 channels over 32 x 32 pixels (hidden_size 16384).
    Case("group_norm.py", "_group_norm_forward_kernel", "--dtype bf16 -a eps=fp32 -c BLOCK_SIZE=16384"),
    Case("group_norm.py", "_group_norm_backward_kernel",
         "--dtype bf16 -c hidden_size=16384 -c channels_per_group=16 -c BLOCK_SIZE=16384 -c dtype=tl.bfloat16"),
    # grpo_loss.py: TRL's GRPO on a Qwen vocabulary (151936), 1024 completion tokens, beta 0.04, eps 0.2,
    # loss_type "grpo" (0), no vLLM importance ratio and no VESPO weights (both None); completion_mask is int32.
    Case("grpo_loss.py", "_selective_log_softmax_kernel",
         "-a LOGITS=*bf16 -a INPUT_IDS=*i64 -a LOG_P=*fp32 -a MASK=*i32 -c TEMPERATURE=0.9 -c L=1024 -c N=151936 "
         "-c BLOCK_N=2048 -w 1 -s 4"),
    Case("grpo_loss.py", "_grpo_loss_fwd_kernel",
         "--dtype fp32 -a LOGITS=*bf16 -a INPUT_IDS=*i64 -a COMPLETION_MASK=*i32 -a VLLM_IS_RATIO=None "
         "-a PHI_SEQ=None -c TEMPERATURE=0.9 -c BETA=0.04 -c EPS_LOW=0.2 -c EPS_HIGH=0.2 -c LOSS_TYPE=0 "
         "-c SAPO_TEMP_POS=1.0 -c SAPO_TEMP_NEG=1.05 -c DELTA=0.0 -c USE_BIAS_CORRECTION_KL=false -c L=1024 "
         "-c N=151936 -c BLOCK_N=2048 -w 1 -s 2"),
    Case("grpo_loss.py", "_grpo_loss_fwd_kernel_seq",
         "--dtype fp32 -a LOGITS=*bf16 -a OLD_LOGP=*fp32 -a INPUT_IDS=*i64 -a COMPLETION_MASK=*i32 "
         "-a VLLM_IS_RATIO=None -c TEMPERATURE=0.9 -c BETA=0.04 -c USE_BIAS_CORRECTION_KL=false -c L=1024 "
         "-c N=151936 -c BLOCK_N=2048 -w 1 -s 2"),
    Case("grpo_loss.py", "_grpo_loss_bwd_kernel_seq",
         "--dtype fp32 -a DKL_SUM=None -a DLOGITS=*bf16 -a LOGITS=*bf16 -a OLD_LOGP=*fp32 -a INPUT_IDS=*i64 "
         "-a COMPLETION_MASK=*i32 -c TEMPERATURE=0.9 -c BETA=0.04 -c USE_BIAS_CORRECTION_KL=false -c EPS_LOW=0.2 "
         "-c EPS_HIGH=0.2 -c DELTA=0.0 -c L=1024 -c N=151936 -c BLOCK_N=4096 -w 16 -s 1"),
    Case("grpo_loss.py", "_grpo_loss_bwd_kernel",
         "--dtype fp32 -a DLOGITS=*bf16 -a LOGITS=*bf16 -a INPUT_IDS=*i64 -a COMPLETION_MASK=*i32 "
         "-a VLLM_IS_RATIO=None -a PHI_SEQ=None -c TEMPERATURE=0.9 -c BETA=0.04 -c EPS_LOW=0.2 -c EPS_HIGH=0.2 "
         "-c LOSS_TYPE=0 -c SAPO_TEMP_POS=1.0 -c SAPO_TEMP_NEG=1.05 -c DELTA=0.0 -c USE_BIAS_CORRECTION_KL=false "
         "-c L=1024 -c N=151936 -c BLOCK_N=4096 -w 16 -s 1"),
    # jsd.py: launched from backends/_triton/jsd.py (tiles of 4096, default warps), beta 0.5, with labels.
    Case("jsd.py", "_jsd_kernel",
         "--dtype bf16 -a loss_ptr=*fp32 -a label_ptr=*i64 -c beta=0.5 -c ignore_index=-100 -c BLOCK_SIZE=4096 "
         "-c HAS_LABEL=true"),
    # kl_div.py: reduction "batchmean" is 3 in liger's table; V-wide rows in tiles of 16384.
    Case("kl_div.py", "_kldiv_kernel_forward",
         "--dtype bf16 -a loss_ptr=*fp32 -a eps=fp32 -c BLOCK_SIZE=16384 -c reduction=3 -c log_target=false -w 16"),
    Case("kl_div.py", "_kldiv_kernel_backward", "--dtype bf16 -c BLOCK_SIZE=16384 -c log_target=false -w 16"),
    # layer_norm.py
    Case("layer_norm.py", "_layer_norm_forward_kernel",
         "--dtype bf16 -a Mean_ptr=*fp32 -a RSTD_ptr=*fp32 -a eps=fp32 -c BLOCK_SIZE=4096 -w 8"),
    Case("layer_norm.py", "_layer_norm_backward_kernel",
         "--dtype bf16 -a Mean_ptr=*fp32 -a RSTD_ptr=*fp32 -a DW_ptr=*fp32 -a DB_ptr=*fp32 -c rows_per_program=63 "
         "-c BLOCK_SIZE=4096 -w 8"),
    # llama4_rope.py: Llama 4 (40 query and 8 key heads of 128); freqs are complex64 viewed as fp32 pairs.
    Case("llama4_rope.py", "_llama4_rope_kernel",
         "--dtype bf16 -a freqs_complex_ptr=*fp32 -a imag_sign=fp32 -c head_dim_half=64 -c n_q_heads=40 "
         "-c n_k_heads=8 -c BLOCK_SIZE=64 -w 4 -s 2"),
    # mhc.py: manifold hyper-connections, 4 streams of width 1024 over 4096 tokens (K = 4096, M = 4*4 + 2*4 = 24),
    # every stride a constexpr of the contiguous tensors; tmax 20, bf16 x with tensor cores (CAST_FP32 false).
    # (The mm_norm kernels unroll K / BLOCK_K iterations: width 4096 would take 64 and 80 s of compiling.)
    Case("mhc.py", "_mhc_mm_norm_fwd_kernel",
         "--dtype fp32 -a x_ptr=*bf16 -a phi_ptr=*bf16 -c N=4096 -c K=4096 -c M=24 -c stride_xn=4096 "
         "-c stride_xk=1 -c stride_phik=24 -c stride_phim=1 -c stride_mn=24 -c stride_mm=1 -c eps=1e-6 "
         "-c BLOCK_N=32 -c BLOCK_K=256 -c BLOCK_M=32 -c CAST_FP32=false -w 4"),
    Case("mhc.py", "_mhc_mm_norm_bwd_fused_kernel",
         "--dtype fp32 -a x_ptr=*bf16 -a phi_ptr=*bf16 -a grad_x_ptr=*bf16 -c N=4096 -c K=4096 -c M=24 "
         "-c stride_xn=4096 -c stride_xk=1 -c stride_phik=24 -c stride_phim=1 -c stride_mn=24 -c stride_mm=1 "
         "-c stride_invr=1 -c stride_gmn=24 -c stride_gmm=1 -c stride_gxn=4096 -c stride_gxk=1 -c stride_gpk=24 "
         "-c stride_gpm=1 -c BLOCK_N=32 -c BLOCK_K=256 -c BLOCK_M=32 -c CAST_FP32=false -w 4"),
    Case("mhc.py", "_mhc_split_sinkhorn_fwd_kernel",
         "-c N=4096 -c HC=4 -c M=24 -c stride_mn=24 -c stride_mm=1 -c stride_hp_n=4 -c stride_hp_h=1 "
         "-c stride_hq_n=4 -c stride_hq_h=1 -c stride_hr_n=16 -c stride_hr_i=4 -c stride_hr_j=1 -c stride_hn=320 "
         "-c stride_ht=16 -c stride_hi=4 -c stride_hj=1 -c pre_eps=0.0 -c sinkhorn_eps=1e-6 -c post_mult=2.0 "
         "-c TMAX=20 -c STORE_HIST=true -w 1"),
    Case("mhc.py", "_mhc_sinkhorn_bwd_kernel",
         "-c N=4096 -c HC=4 -c stride_mn=24 -c stride_mm=1 -c stride_go_n=16 -c stride_go_i=4 -c stride_go_j=1 "
         "-c stride_gl_n=16 -c stride_gl_i=4 -c stride_gl_j=1 -c sinkhorn_eps=1e-6 -c TMAX=20 -w 1"),
    Case("mhc.py", "_mhc_sinkhorn_bwd_hist_kernel",
         "-c N=4096 -c HC=4 -c stride_mn=24 -c stride_mm=1 -c stride_hn=320 -c stride_ht=16 -c stride_hi=4 "
         "-c stride_hj=1 -c stride_go_n=16 -c stride_go_i=4 -c stride_go_j=1 -c stride_gl_n=16 -c stride_gl_i=4 "
         "-c stride_gl_j=1 -c sinkhorn_eps=1e-6 -c TMAX=20 -w 1"),
    Case("mhc.py", "_mhc_pre_fwd_kernel",
         "--dtype fp32 -a x_ptr=*bf16 -c N=4096 -c HC=4 -c C=1024 -c stride_xn=4096 -c stride_xh=1024 "
         "-c stride_xc=1 -c stride_hn=4 -c stride_hh=1 -c stride_on=1024 -c stride_oc=1 -c BLOCK_N=32 "
         "-c BLOCK_C=128 -w 4"),
    Case("mhc.py", "_mhc_pre_bwd_kernel",
         "--dtype fp32 -a x_ptr=*bf16 -c N=4096 -c HC=4 -c C=1024 -c stride_xn=4096 -c stride_xh=1024 "
         "-c stride_xc=1 -c stride_hn=4 -c stride_hh=1 -c stride_gon=1024 -c stride_goc=1 -c stride_gxn=4096 "
         "-c stride_gxh=1024 -c stride_gxc=1 -c stride_ghn=4 -c stride_ghh=1 -c BLOCK_N=32 -c BLOCK_C=128 -w 4"),
    Case("mhc.py", "_mhc_post_res_fwd_kernel",
         "--dtype fp32 -a x_ptr=*bf16 -a f_ptr=*bf16 -c N=4096 -c HC=4 -c C=1024 -c stride_xn=4096 "
         "-c stride_xh=1024 -c stride_xc=1 -c stride_fn=1024 -c stride_fc=1 -c stride_hpn=4 -c stride_hph=1 "
         "-c stride_hrn=16 -c stride_hri=4 -c stride_hrj=1 -c stride_on=4096 -c stride_oh=1024 -c stride_oc=1 "
         "-c BLOCK_N=32 -c BLOCK_C=64 -w 4 -s 2"),
    Case("mhc.py", "_mhc_post_res_bwd_kernel",
         "--dtype fp32 -a x_ptr=*bf16 -a f_ptr=*bf16 -c N=4096 -c HC=4 -c C=1024 -c stride_xn=4096 "
         "-c stride_xh=1024 -c stride_xc=1 -c stride_fn=1024 -c stride_fc=1 -c stride_hpn=4 -c stride_hph=1 "
         "-c stride_hrn=16 -c stride_hri=4 -c stride_hrj=1 -c stride_gon=4096 -c stride_goh=1024 -c stride_goc=1 "
         "-c stride_gxn=4096 -c stride_gxh=1024 -c stride_gxc=1 -c stride_gfn=1024 -c stride_gfc=1 "
         "-c stride_ghpn=4 -c stride_ghph=1 -c stride_ghrn=16 -c stride_ghri=4 -c stride_ghrj=1 -c BLOCK_N=32 "
         "-c BLOCK_C=64 -w 4 -s 2"),
    # mlp.py: TMA tensor descriptors (host TensorDescriptor objects), typed as Triton's launcher types them:
    # tensordesc<dtype[block shape]>, the block shape set by the autotune config's pre_hook (config 0).
    Case("mlp.py", "_swiglu_kernel_forward",
         "-a 'desc_input=tensordesc<bf16[1, 64, 64]>' -a 'desc_Wg=tensordesc<bf16[128, 64]>' "
         "-a 'desc_Wu=tensordesc<bf16[128, 64]>' -a 'desc_A=tensordesc<bf16[1, 64, 128]>' "
         "-a 'desc_G=tensordesc<bf16[1, 64, 128]>' -a 'desc_U=tensordesc<bf16[1, 64, 128]>' -c gate_multiplier=1.0"),
    Case("mlp.py", "_swiglu_kernel_forward_inference",
         "-a 'desc_input=tensordesc<bf16[1, 32, 64]>' -a 'desc_Wg=tensordesc<bf16[128, 64]>' "
         "-a 'desc_Wu=tensordesc<bf16[128, 64]>' -a 'desc_A=tensordesc<bf16[1, 32, 128]>' -c gate_multiplier=1.0"),
    Case("mlp.py", "_swiglu_kernel_backward_dGU",
         "-a 'desc_dO=tensordesc<bf16[1, 64, 64]>' -a 'desc_Wd=tensordesc<bf16[64, 128]>' "
         "-a 'desc_G=tensordesc<bf16[1, 64, 128]>' -a 'desc_U=tensordesc<bf16[1, 64, 128]>' "
         "-a 'desc_dG=tensordesc<bf16[1, 64, 128]>' -a 'desc_dU=tensordesc<bf16[1, 64, 128]>' -c BLOCK_M=64 "
         "-c BLOCK_N=128 -c BLOCK_K=64 -c GROUP_SIZE_M=1 -c gate_multiplier=1.0 -c down_multiplier=1.0 -w 4 -s 2"),
    Case("mlp.py", "_swiglu_kernel_backward_dI",
         "-a 'desc_dG=tensordesc<bf16[1, 64, 64]>' -a 'desc_Wg=tensordesc<bf16[64, 128]>' "
         "-a 'desc_dU=tensordesc<bf16[1, 64, 64]>' -a 'desc_Wu=tensordesc<bf16[64, 128]>' "
         "-a 'desc_dI=tensordesc<bf16[1, 64, 128]>'"),
    # modulated_rms_norm.py: AdaLN-style scale and shift shared by the 1024 rows of a sample.
    Case("modulated_rms_norm.py", "_modulated_rms_norm_forward_kernel",
         "--dtype bf16 -a RSTD_ptr=*fp32 -a eps=fp32 -a offset=fp32 -c casting_mode=0 -c elementwise_affine=true "
         "-c has_shift=true -c rows_per_modulation=1024 -c BLOCK_SIZE=4096 -w 8"),
    Case("modulated_rms_norm.py", "_modulated_rms_norm_backward_kernel",
         "--dtype bf16 -a RSTD_ptr=*fp32 -a dW_ptr=*fp32 -a dScale_ptr=*fp32 -a dShift_ptr=*fp32 "
         "-c X_dtype=torch.bfloat16 -c offset=0.0 -c casting_mode=0 -c elementwise_affine=true -c has_shift=true "
         "-c rows_per_modulation=1024 -c BLOCK_SIZE=4096 -w 8"),
    # multi_token_attention.py: causal masking of 128 x 128 score matrices (BLOCK = L, as liger picks it);
    # num_warps is both a constexpr of the kernel and the launch option.
    Case("multi_token_attention.py", "_mask_fwd_kernel",
         "--dtype fp32 -c mask_val=-1e9 -c BLOCK=128 -c num_warps=4 -w 4"),
    Case("multi_token_attention.py", "_mask_bwd_kernel", "--dtype fp32 -c BLOCK=128 -c num_warps=4 -w 4"),
    # poly_norm.py
    Case("poly_norm.py", "_poly_norm_forward_kernel",
         "--dtype bf16 -a RSTD_ptr=*fp32 -a eps=fp32 -c BLOCK_SIZE=4096 -w 8"),
    Case("poly_norm.py", "_poly_norm_backward_kernel",
         "--dtype bf16 -a RSTD_ptr=*fp32 -a dW_ptr=*fp32 -a dB_ptr=*fp32 -a n_cols=i32 -c rows_per_program=63 "
         "-c BLOCK_SIZE=4096 -w 8"),
    # qwen2vl_mrope.py: Qwen2-VL-7B (28 query and 4 key heads of 128, mrope_section [16, 24, 24]), batch 1.
    Case("qwen2vl_mrope.py", "_triton_qwen2vl_mrope",
         "--dtype bf16 -c bs=1 -c n_qh=28 -c n_kh=4 -c hd=128 -c pad_n_qh=32 -c pad_n_kh=4 -c pad_hd=128 "
         "-c mrope_section_t=16 -c mrope_section_h=24 -c BLOCK_SIZE=32"),
    # relu_squared.py: rows of width I.
    Case("relu_squared.py", "_relu_squared_forward_kernel", "--dtype bf16 -c n_cols=14336 -c BLOCK_SIZE=16384 -w 16"),
    Case("relu_squared.py", "_relu_squared_backward_kernel",
         "--dtype bf16 -c n_cols=14336 -c BLOCK_SIZE=16384 -w 16"),
    # rms_norm.py: casting_mode 0 is "llama"; the block kernels handle 16 rows per program.
    Case("rms_norm.py", "_rms_norm_forward_kernel",
         "--dtype bf16 -a RSTD_ptr=*fp32 -a eps=fp32 -a offset=fp32 -c casting_mode=0 -c elementwise_affine=true "
         "-c BLOCK_SIZE=4096 -w 8"),
    Case("rms_norm.py", "_rms_norm_backward_kernel",
         "--dtype bf16 -a RSTD_ptr=*fp32 -a dW_ptr=*fp32 -a offset=fp32 -c X_dtype=bf16 -c casting_mode=0 "
         "-c elementwise_affine=true -c BLOCK_SIZE=4096 -w 8"),
    Case("rms_norm.py", "_block_rms_norm_forward_kernel",
         "--dtype bf16 -a RSTD_ptr=*fp32 -a eps=fp32 -a offset=fp32 -c casting_mode=0 -c elementwise_affine=true "
         "-c BLOCK_SIZE=4096 -c BLOCK_ROW=16 -w 8"),
    Case("rms_norm.py", "_block_rms_norm_backward_kernel",
         "--dtype bf16 -a RSTD_ptr=*fp32 -a dW_ptr=*fp32 -a offset=fp32 -c X_dtype=bf16 -c casting_mode=0 "
         "-c elementwise_affine=true -c BLOCK_SIZE=4096 -c BLOCK_ROW=16 -w 8"),
    # rope.py: Llama 3 (32 query and 8 key heads of 128), batch 4, one cos/sin table for the batch.
    Case("rope.py", "_triton_rope",
         "--dtype bf16 -c bs=4 -c cos_bs=1 -c n_qh=32 -c n_kh=8 -c hd=128 -c pad_n_qh=32 -c pad_n_kh=8 -c pad_hd=128 "
         "-c pad_rd=128 -c rd=128 -c BLOCK_SIZE=32"),
    # softmax.py: rows of width H. The multi-block kernels call tl.float32(x), which no Triton accepts (3.6 to
    # 3.9: a dtype is not callable); liger never launches them, as its BLOCK_SIZE always covers the row.
    Case("softmax.py", "_softmax_single_block_forward_kernel", "--dtype bf16 -c BLOCK_SIZE=4096 -w 8"),
    Case("softmax.py", "_softmax_multi_block_forward_kernel", "--dtype bf16 -c BLOCK_SIZE=4096 -w 8",
         compile_error="softmax.py:44: _softmax_multi_block_forward_kernel does not compile: TypeError: "
                       "'dtype' object is not callable"),
    Case("softmax.py", "_softmax_single_block_backward_kernel", "--dtype bf16 -c BLOCK_SIZE=4096 -w 8"),
    Case("softmax.py", "_softmax_multi_block_backward_kernel", "--dtype bf16 -c BLOCK_SIZE=4096 -w 8",
         compile_error="softmax.py:98: _softmax_multi_block_backward_kernel does not compile: TypeError: "
                       "'dtype' object is not callable"),
    # sparsemax.py: rows of 1024 (sorted copy in fp32); num_warps is a constexpr and the launch option.
    Case("sparsemax.py", "_sparsemax_forward_kernel",
         "--dtype bf16 -a sorted_x_ptr=*fp32 -c BLOCK_SIZE=1024 -c num_warps=4 -w 4"),
    Case("sparsemax.py", "_sparsemax_backward_kernel", "--dtype bf16 -c BLOCK_SIZE=1024 -c num_warps=4 -w 4"),
    # swiglu.py: rows of width I; the tiled kernels (Blackwell path) take tiles of 1024 with 4 warps.
    Case("swiglu.py", "_swiglu_forward_kernel",
         "--dtype bf16 -a gate_multiplier=fp32 -c n_cols=14336 -c BLOCK_SIZE=16384 -w 16"),
    Case("swiglu.py", "_swiglu_backward_kernel",
         "--dtype bf16 -a gate_multiplier=fp32 -c n_cols=14336 -c BLOCK_SIZE=16384 -w 16"),
    Case("swiglu.py", "_swiglu_forward_kernel_tiled", "--dtype bf16 -a gate_multiplier=fp32 -c BLOCK_SIZE=1024 -w 4"),
    Case("swiglu.py", "_swiglu_backward_kernel_tiled", "--dtype bf16 -a gate_multiplier=fp32 -c BLOCK_SIZE=1024 -w 4"),
    Case("swiglu.py", "_swiglu_fused_gate_up_forward_kernel",
         "--dtype bf16 -c ffn_size=14336 -c BLOCK_SIZE=16384 -w 16"),
    Case("swiglu.py", "_swiglu_fused_gate_up_backward_kernel",
         "--dtype bf16 -c ffn_size=14336 -c BLOCK_SIZE=16384 -w 16"),
    # tvd.py: reduction "batchmean" (3), with labels.
    Case("tvd.py", "_tv_distance_kernel",
         "--dtype bf16 -a loss_ptr=*fp32 -a label_ptr=*i64 -c ignore_index=-100 -c BLOCK_SIZE=16384 -c HAS_LABEL=true "
         "-c reduction=3 -w 16"),
    # utils.py: scales a V-wide gradient row by the loss gradient, in tiles of 32768.
    Case("utils.py", "element_mul_kernel", "--dtype bf16 -c BLOCK_SIZE=32768 -w 32"),
    # vocab_parallel_cross_entropy.py: V split over 8 ranks (16032 columns each).
    Case("vocab_parallel_cross_entropy.py", "liger_vocab_parallel_ce_forward_kernel",
         "--dtype fp32 -a X_ptr=*bf16 -a Y_ptr=*i64 -a ignore_index=-100 -c BLOCK_SIZE=16384 -w 32"),
    Case("vocab_parallel_cross_entropy.py", "liger_vocab_parallel_ce_backward_kernel",
         "--dtype fp32 -a Y_ptr=*i64 -a ignore_index=-100 -a alpha_eff=fp32 -a eps_eff=fp32 "
         "-c HAS_LABEL_SMOOTHING=false -c BLOCK_SIZE=16384 -w 32"),
]  # fmt: skip


def liger_ops() -> Path:
    """liger_kernel/ops of the installed liger-kernel; fails in CI when it is missing, skips elsewhere."""
    spec = importlib.util.find_spec("liger_kernel")
    if spec is None:
        message = f"liger-kernel is not installed: pip install --no-deps liger-kernel=={LIGER_VERSION}"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return Path(spec.submodule_search_locations[0]) / "ops"


def test_liger_is_the_pinned_version():
    liger_ops()
    assert importlib.metadata.version("liger-kernel") == LIGER_VERSION


# @triton.jit functions of liger's GPU ops that are not kernels: helpers they call, and a scan's combine function.
NOT_KERNELS = {("mlp.py", "_l2_swizzle"), ("swiglu.py", "silu"), ("fused_moe_kernels.py", "_keyed_add")}


def jit_functions(ops: Path) -> set[tuple[str, str]]:
    """(file, function) for every function decorated with triton.jit under ops/, the NPU backend left out."""
    found = set()
    for path in ops.rglob("*.py"):
        file = path.relative_to(ops).as_posix()
        if file.startswith("backends/_ascend/"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            decorators = [ast.unparse(d) for d in getattr(node, "decorator_list", [])]
            if isinstance(node, ast.FunctionDef) and any(d.startswith("triton.jit") for d in decorators):
                found.add((file, node.name))
    return found


def test_table_covers_every_kernel():
    assert {(case.file, case.kernel) for case in CASES} == jit_functions(liger_ops()) - NOT_KERNELS


@pytest.mark.parametrize("case", CASES, ids=[f"{Path(c.file).stem}-{c.kernel}" for c in CASES])
def test_liger_kernel_compiles(case: Case, cli):
    """The command line run in this process: liger's modules (and torch under them) are imported once
    for the whole table, not once per kernel and target."""
    ops = liger_ops()
    base = ["dump", ops / case.file, "-k", case.kernel, *shlex.split(case.flags), "--json", "--target"]
    for target in TARGETS:
        if case.compile_error:
            assert case.compile_error in cli(*base, target, expect=1).stderr
            continue
        report = json.loads(cli(*base, target).stdout)
        assert report["variant"]["target"] == target
        assert report["resources"]["registers"] > 0
        assert report["stages"]["sass" if target.startswith("sm") else "amdgcn"].strip()
        assert report["resources"]["instructions"]["total"] > 0
