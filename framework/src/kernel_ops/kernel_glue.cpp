// Shared glue of the kernels.* ops (see kernel_glue.h).
#include "kernel_ops/kernel_glue.h"

#include <ATen/ATen.h>

#include <sstream>
#include <stdexcept>

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
  if (call.plugin != nullptr) return *call.plugin;
  std::string why_not;
  const KernelPlugin* plugin = load_kernel_plugin(call.backend, &why_not);
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
  if (!host.device().is_cpu()) {
    throw std::logic_error(
        "internal error: kernels.* ops take host tensors; please report");
  }
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

}  // namespace casebook::kernel_glue
