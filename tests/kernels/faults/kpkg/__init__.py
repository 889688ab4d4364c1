"""A library's package holding kernels (as unsloth's or triton_kernels' do)."""
