// A CUDA device guard for a CPU-only build of torch, which has none: torch's C++ code opens a
// device guard for a tensor's device (indexing, .cuda(), .to("cuda"), module initialisation), and
// with no guard registered for CUDA it fails with "PyTorch is not linked with support for cuda
// devices". torch's own FakeGuardImpl only tracks the current device index. Built and loaded
// by cuda_guard.py, on CPU-only builds alone.
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <c10/core/impl/FakeGuardImpl.h>

static c10::impl::FakeGuardImpl<c10::DeviceType::CUDA> fake_cuda_guard;

extern "C" int tritonscope_register_cuda_guard() {
  auto& slot = c10::impl::device_guard_impl_registry[static_cast<size_t>(c10::DeviceType::CUDA)];
  if (slot.load() != nullptr) return 0;  // a CUDA build: its own guard stays
  slot.store(&fake_cuda_guard);
  return 1;
}
