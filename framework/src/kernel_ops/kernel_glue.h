// What every kernels.* op shares: turning at::Tensors into the kernels'
// framework-free arguments, statuses into OpErrors, and host tensors into
// device copies through a kernel plugin. Internal to casebook_lib.
#pragma once

#include <ATen/core/Tensor.h>

#include <functional>
#include <string>
#include <vector>

#include "casebook/ops.h"
#include "common/kernel_types.h"
#include "device/kernel_plugin.h"

namespace casebook::kernel_glue {

// The kernel element type of a tensor; OpError(contract) naming the op, the
// input and the accepted types otherwise.
CasebookScalarType floating_type(const std::string& op,
                                 const std::string& input,
                                 const at::Tensor& tensor);
CasebookScalarType index_type(const std::string& op, const std::string& input,
                              const at::Tensor& tensor);
at::ScalarType aten_type(CasebookScalarType type);

// Throws OpError(contract) unless `tensor` has `dims` dimensions.
void require_dims(const std::string& op, const std::string& input,
                  const at::Tensor& tensor, int64_t dims);

// Throws for a non-OK status: index_out_of_range with the position,
// contract for an invalid argument, and for a device error the family its
// name says (device_assert, illegal_address, out_of_memory) or, failing
// that, a plain error that the runner classifies by its message.
void throw_on_error(const std::string& op, const CasebookKernelStatus& status);

// The backend's plugin, or OpError(op_unavailable) saying why there is none.
const KernelPlugin& require_plugin(const OpCall& call, const std::string& op);

// Device memory owned for the length of one op call.
class DeviceBuffer {
 public:
  DeviceBuffer(const KernelPlugin& plugin, size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  void* get() const { return pointer_; }
  size_t bytes() const { return bytes_; }

 private:
  const KernelPlugin& plugin_;
  void* pointer_ = nullptr;
  size_t bytes_ = 0;
};

// A host tensor's whole storage copied to the device, so that the view keeps
// its strides and storage offset (and the storage it skips, which a case
// fills with NaN or sentinels, stays where a wrong read would find it).
class DeviceTensor {
 public:
  DeviceTensor(const KernelPlugin& plugin, const at::Tensor& host);
  // The device address of the view's element 0.
  const void* data() const;

 private:
  DeviceBuffer storage_;
  size_t offset_bytes_ = 0;
};

// Copies a contiguous device result into a fresh host tensor of that shape.
at::Tensor copy_to_host(const KernelPlugin& plugin, const void* device,
                        std::vector<int64_t> sizes, at::ScalarType dtype);

// The pointers of one launch, host or device ones alike: the inputs (each at
// its view's element 0, strides kept), the output and the workspace.
struct LaunchPointers {
  std::vector<const void*> inputs;
  void* output = nullptr;
  void* workspace = nullptr;
  size_t workspace_bytes = 0;
};

// What an op does with them: fills its args and calls the CPU reference
// (`table` null, the cpu backend) or the plugin's launcher (`table`).
using Launch = std::function<CasebookKernelStatus(
    const LaunchPointers& pointers, const CasebookKernelPluginV1* table)>;

// One kernels.* call, the same way for every kernel: on the cpu backend, a
// fresh output and the host pointers; on a GPU backend, the inputs' storage
// copied to the device, the output and `workspace_bytes` of workspace
// allocated there (nothing for 0), the launch, the output copied back and
// the device memory freed. A failed status throws (throw_on_error).
at::Tensor launch_kernel(const OpCall& call, const std::string& op,
                         const std::vector<at::Tensor>& inputs,
                         const std::vector<int64_t>& output_sizes,
                         at::ScalarType output_type, size_t workspace_bytes,
                         const Launch& launch);

}  // namespace casebook::kernel_glue
