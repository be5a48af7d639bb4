// Shared glue of the kernels.* ops (see kernel_glue.h).
#include "kernel_ops/kernel_glue.h"

#include <ATen/ATen.h>

#include <memory>
#include <sstream>
#include <stdexcept>

#include "casebook/internal_error.h"
#include "device/backend_runtime.h"

namespace casebook::kernel_glue {
namespace {

std::string shape_text(const at::Tensor& tensor) {
  std::ostringstream out;
  out << tensor.sizes();
  return out.str();
}

// Device errors: the families whose names are unambiguous; the rest are
// left to the runner's classification of the message.
[[noreturn]] void throw_device_error(const std::string& message) {
  if (message.find("ErrorAssert") != std::string::npos) {
    throw OpError(Family::kDeviceAssert, message);
  }
  if (message.find("ErrorIllegalAddress") != std::string::npos) {
    throw OpError(Family::kIllegalAddress, message);
  }
  if (message.find("ErrorMemoryAllocation") != std::string::npos ||
      message.find("ErrorOutOfMemory") != std::string::npos) {
    throw OpError(Family::kOutOfMemory, message);
  }
  throw std::runtime_error(message);
}

[[noreturn]] void throw_gpu_error(const CasebookGpuError& error) {
  throw_device_error(describe_gpu_error(error));
}

}  // namespace

CasebookScalarType floating_type(const std::string& op,
                                 const std::string& input,
                                 const at::Tensor& tensor) {
  switch (tensor.scalar_type()) {
    case at::kFloat:
      return CASEBOOK_FLOAT32;
    case at::kHalf:
      return CASEBOOK_FLOAT16;
    case at::kBFloat16:
      return CASEBOOK_BFLOAT16;
    default:
      break;
  }
  throw OpError(Family::kContract,
                op + ": `" + input +
                    "` must be float32, float16 or "
                    "bfloat16, got " +
                    std::string(c10::toString(tensor.scalar_type())));
}

CasebookScalarType index_type(const std::string& op, const std::string& input,
                              const at::Tensor& tensor) {
  if (tensor.scalar_type() == at::kLong) return CASEBOOK_INT64;
  if (tensor.scalar_type() == at::kInt) return CASEBOOK_INT32;
  throw OpError(Family::kContract,
                op + ": `" + input + "` must be int64 or int32, got " +
                    std::string(c10::toString(tensor.scalar_type())));
}

at::ScalarType aten_type(CasebookScalarType type) {
  switch (type) {
    case CASEBOOK_FLOAT16:
      return at::kHalf;
    case CASEBOOK_BFLOAT16:
      return at::kBFloat16;
    case CASEBOOK_INT32:
      return at::kInt;
    case CASEBOOK_INT64:
      return at::kLong;
    case CASEBOOK_FLOAT32:
      break;
  }
  return at::kFloat;
}

void require_dims(const std::string& op, const std::string& input,
                  const at::Tensor& tensor, int64_t dims) {
  if (tensor.dim() == dims) return;
  throw OpError(Family::kContract,
                op + ": `" + input + "` must have " + std::to_string(dims) +
                    " dimension(s), got shape " + shape_text(tensor));
}

void throw_on_error(const std::string& op, const CasebookKernelStatus& status) {
  const std::string message = op + ": " + status.message;
  switch (status.code) {
    case CASEBOOK_STATUS_OK:
      return;
    case CASEBOOK_STATUS_INDEX_OUT_OF_RANGE:
      throw OpError(Family::kIndexOutOfRange, message, {status.position});
    case CASEBOOK_STATUS_INVALID_ARGUMENT:
      throw OpError(Family::kContract, message);
    default:
      break;
  }
  throw_device_error(message);
}

const KernelPlugin& require_plugin(const OpCall& call, const std::string& op) {
  std::string why_not;
  const KernelPlugin* plugin = backend_kernel_plugin(call.backend, &why_not);
  if (plugin == nullptr) {
    throw OpError(
        Family::kOpUnavailable,
        op + " on " + std::string(backend_name(call.backend)) + ": " + why_not);
  }
  return *plugin;
}

DeviceBuffer::DeviceBuffer(const KernelPlugin& plugin, size_t bytes)
    : plugin_(plugin), bytes_(bytes) {
  CasebookGpuError error{};
  if (plugin.table->device_malloc(&pointer_, bytes, &error) != 0) {
    throw_device_error(describe_gpu_error(error) + " for " +
                       std::to_string(bytes) + " bytes");
  }
}

DeviceBuffer::~DeviceBuffer() {
  CasebookGpuError ignored{};  // a failed free surfaces at the next synchronize
  plugin_.table->device_free(pointer_, &ignored);
}

DeviceTensor::DeviceTensor(const KernelPlugin& plugin, const at::Tensor& host)
    : storage_(plugin, host.storage().nbytes()),
      offset_bytes_(static_cast<size_t>(host.storage_offset()) *
                    host.element_size()) {
  CASEBOOK_ASSERT(
      host.device().is_cpu(),
      "kernels.* ops take host tensors, got one on " + host.device().str());
  CasebookGpuError error{};
  if (plugin.table->copy_to_device(storage_.get(),
                                   host.storage().data_ptr().get(),
                                   storage_.bytes(), &error) != 0) {
    throw_gpu_error(error);
  }
}

const void* DeviceTensor::data() const {
  return storage_.get() == nullptr
             ? nullptr
             : static_cast<const char*>(storage_.get()) + offset_bytes_;
}

at::Tensor copy_to_host(const KernelPlugin& plugin, const void* device,
                        std::vector<int64_t> sizes, at::ScalarType dtype) {
  at::Tensor host = at::empty(sizes, at::TensorOptions().dtype(dtype));
  CasebookGpuError error{};
  if (plugin.table->copy_to_host(host.data_ptr(), device, host.nbytes(),
                                 &error) != 0) {
    throw_gpu_error(error);
  }
  return host;
}

at::Tensor launch_kernel(const OpCall& call, const std::string& op,
                         const std::vector<at::Tensor>& inputs,
                         const std::vector<int64_t>& output_sizes,
                         at::ScalarType output_type, size_t workspace_bytes,
                         const Launch& launch) {
  LaunchPointers pointers;
  if (call.backend == Backend::kCpu) {
    at::Tensor output =
        at::empty(output_sizes, at::TensorOptions().dtype(output_type));
    for (const at::Tensor& input : inputs) {
      pointers.inputs.push_back(input.data_ptr());
    }
    pointers.output = output.data_ptr();
    throw_on_error(op, launch(pointers, nullptr));
    return output;
  }
  const KernelPlugin& plugin = require_plugin(call, op);
  std::vector<std::unique_ptr<DeviceTensor>> device_inputs;
  for (const at::Tensor& input : inputs) {
    device_inputs.push_back(std::make_unique<DeviceTensor>(plugin, input));
    pointers.inputs.push_back(device_inputs.back()->data());
  }
  int64_t elements = 1;
  for (int64_t size : output_sizes) elements *= size;
  DeviceBuffer output(
      plugin, static_cast<size_t>(elements) * c10::elementSize(output_type));
  std::unique_ptr<DeviceBuffer> workspace;
  if (workspace_bytes > 0) {
    workspace = std::make_unique<DeviceBuffer>(plugin, workspace_bytes);
    pointers.workspace = workspace->get();
    pointers.workspace_bytes = workspace->bytes();
  }
  pointers.output = output.get();
  throw_on_error(op, launch(pointers, plugin.table));
  return copy_to_host(plugin, output.get(), output_sizes, output_type);
}

}  // namespace casebook::kernel_glue
