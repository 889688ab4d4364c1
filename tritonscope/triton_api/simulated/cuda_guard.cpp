// The simulated GPU's CUDA device, for torch's C++ code. Built and loaded by cuda_guard.py: the
// guard alone on a CPU-only build of torch (which has none), in any process; the guard and the hooks
// only in a traced program, where on a CUDA build they replace torch's own.
//
// 1. A device guard: torch's C++ code opens a device guard for a tensor's device (indexing, .cuda(),
//    .to("cuda"), module initialisation), and with none registered for CUDA it fails with "PyTorch is
//    not linked with support for cuda devices"; a CUDA build's own drives the CUDA runtime, which
//    fails with no GPU. The autograd engine asks the guard how many devices there are (one worker
//    thread each), for the current stream of each, and records and waits on events between
//    streams. One device, one stream (id 0), events that are always done: nothing runs on a
//    simulated GPU, so there is nothing to order.
// 2. CUDA hooks that say CUDA is there: the autograd engine finds the accelerator whose streams it
//    synchronizes with through at::getAccelerator(), which asks whether CUDA hooks are built in, and
//    stops a backward pass with "Cannot access accelerator device when none is available" when
//    they say no; it asks them which devices have a context. torch made its hooks object when it
//    was imported (on a CPU-only build the default, which says no to everything; on a CUDA build
//    the real one, which asks the CUDA runtime), so the simulated hooks are constructed in that
//    object's place: the classes hold nothing but their virtual functions, so the size is the same
//    (checked below against the headers of the torch being built for) and only the answers differ.
// 3. (see simulated_sdp_choice) scaled_dot_product_attention's choice of kernel, asked of sdpa.py.
#include <ATen/detail/CUDAHooksInterface.h>
#include <ATen/native/transformers/attention.h>
#include <ATen/ops/_fused_sdp_choice_ops.h>  // the operator alone: at::_fused_sdp_choice's header takes seconds more to compile
#include <c10/core/impl/DeviceGuardImplInterface.h>

#include <cstring>
#include <new>
#include <typeinfo>
#if __has_include(<ATen/cuda/detail/CUDAHooks.h>)
#include <ATen/cuda/detail/CUDAHooks.h>
#define TRITONSCOPE_HAS_CUDA_HOOKS 1
#endif

namespace {

using c10::Device;
using c10::DeviceIndex;
using c10::Stream;

struct SimulatedCudaGuard final : public c10::impl::DeviceGuardImplInterface {
  c10::DeviceType type() const override { return c10::DeviceType::CUDA; }
  Device exchangeDevice(Device) const override { return Device(c10::DeviceType::CUDA, 0); }
  Device getDevice() const override { return Device(c10::DeviceType::CUDA, 0); }
  void setDevice(Device) const override {}
  void uncheckedSetDevice(Device) const noexcept override {}
  Stream getStream(Device d) const noexcept override { return Stream(Stream::DEFAULT, d); }
  Stream getDefaultStream(Device d) const override { return Stream(Stream::DEFAULT, d); }
  Stream getStreamFromGlobalPool(Device d, bool) const override { return Stream(Stream::DEFAULT, d); }
  Stream getNewStream(Device d, int) const override { return Stream(Stream::DEFAULT, d); }
  Stream exchangeStream(Stream s) const noexcept override { return Stream(Stream::DEFAULT, s.device()); }
  DeviceIndex deviceCount() const noexcept override { return 1; }
  void record(void**, const Stream&, const DeviceIndex, const c10::EventFlag) const override {}
  void block(void*, const Stream&) const override {}
  bool queryEvent(void*) const override { return true; }
  void destroyEvent(void*, const DeviceIndex) const noexcept override {}
  bool queryStream(const Stream&) const override { return true; }
  void synchronizeStream(const Stream&) const override {}
  void synchronizeEvent(void*) const override {}
  void synchronizeDevice(const DeviceIndex) const override {}
  void recordDataPtrOnStream(const c10::DataPtr&, const Stream&) const override {}
};

long simulated_cudnn_version = 0;  // tritonscope_set_cudnn: torch's CUDA build's (build_facts.py)

// The answers the autograd engine and at::getAccelerator() ask for, and cuDNN's, by which torch
// picks convolution and batch-norm kernels (and a convolution's output layout: channels-last
// where cuDNN takes it) as on the GPU; the rest stay as the default hooks give them (most raise
// "without ATen_cuda library", as before).
struct SimulatedCudaHooks final : public at::CUDAHooksInterface {
  void init() const override {}
  bool isBuilt() const override { return true; }
  bool hasCUDA() const override { return true; }
  bool isAvailable() const override { return true; }
  bool hasPrimaryContext(DeviceIndex index) const override { return index == 0; }
  DeviceIndex deviceCount() const override { return 1; }
  DeviceIndex getCurrentDevice() const override { return 0; }
  DeviceIndex current_device() const override { return 0; }
  int getNumGPUs() const override { return 1; }
  bool hasCuDNN() const override { return simulated_cudnn_version > 0; }
  bool compiledWithCuDNN() const override { return simulated_cudnn_version > 0; }
  bool supportsDilatedConvolutionWithCuDNN() const override { return true; }
  bool supportsDepthwiseConvolutionWithCuDNN() const override { return true; }
  bool supportsBFloat16ConvolutionWithCuDNNv8() const override { return true; }
  long versionCuDNN() const override { return simulated_cudnn_version; }
  long versionRuntimeCuDNN() const override { return simulated_cudnn_version; }
  double batchnormMinEpsilonCuDNN() const override { return 0.0; }  // CUDNN_BN_MIN_EPSILON
};

static_assert(sizeof(SimulatedCudaHooks) == sizeof(at::CUDAHooksInterface), "hooks must fit in place");
#ifdef TRITONSCOPE_HAS_CUDA_HOOKS
static_assert(sizeof(SimulatedCudaHooks) == sizeof(at::cuda::detail::CUDAHooks), "hooks must fit in place");
#endif

// The hooks torch made (by their class's name: a CPU-only build has no CUDAHooks class to compare with).
bool replaceable(const at::CUDAHooksInterface& hooks) {
  const char* name = typeid(hooks).name();
  if (std::strcmp(name, typeid(at::CUDAHooksInterface).name()) == 0) return true;
#ifdef TRITONSCOPE_HAS_CUDA_HOOKS
  return std::strcmp(name, "N2at4cuda6detail9CUDAHooksE") == 0;
#else
  return false;
#endif
}

SimulatedCudaGuard simulated_cuda_guard;

// scaled_dot_product_attention asks this stub for the attention kernel of CUDA tensors, where a CPU
// build has none (so it picks math) and a CUDA build's asks the CUDA runtime: ask the
// _fused_sdp_choice operator instead, whose answer for the simulated device is sdpa.py's.
int64_t simulated_sdp_choice(const at::Tensor& query, const at::Tensor& key, const at::Tensor& value,
                             const std::optional<at::Tensor>& mask, double dropout, bool causal,
                             std::optional<double> scale, bool enable_gqa) {
  return at::_ops::_fused_sdp_choice::call(query, key, value, mask, dropout, causal, scale, enable_gqa);
}

}  // namespace

// 1 if the guard was registered (a CPU-only build), 0 where torch has a CUDA guard of its own.
extern "C" int tritonscope_register_cuda_guard() {
  auto& slot = c10::impl::device_guard_impl_registry[static_cast<size_t>(c10::DeviceType::CUDA)];
  if (slot.load() != nullptr) return 0;  // a CUDA build: its own guard stays
  slot.store(&simulated_cuda_guard);
  return 1;
}

// The traced program of a CUDA build: its device guard drives the CUDA runtime; put the simulated one
// in its place (nothing real runs in that process: every CUDA tensor is fake).
extern "C" int tritonscope_replace_cuda_guard() {
  c10::impl::device_guard_impl_registry[static_cast<size_t>(c10::DeviceType::CUDA)].store(&simulated_cuda_guard);
  return 1;
}

extern "C" void tritonscope_set_cudnn(long version) { simulated_cudnn_version = version; }

// 1 if the hooks now say a CUDA device is there; 0 where they are of a class not known here.
extern "C" int tritonscope_install_cuda_hooks() {
  auto& hooks = const_cast<at::CUDAHooksInterface&>(at::detail::getCUDAHooks());
  if (std::strcmp(typeid(hooks).name(), typeid(SimulatedCudaHooks).name()) == 0) return 1;
  if (!replaceable(hooks)) return 0;
  hooks.~CUDAHooksInterface();
  new (&hooks) SimulatedCudaHooks();
  return 1;
}

// The traced program: scaled_dot_product_attention picks its kernel as on the target GPU (3. above).
extern "C" int tritonscope_answer_sdp_choice() {
  at::native::_fused_sdp_choice_stub.set_cuda_dispatch_ptr(&simulated_sdp_choice);
  return 1;
}
