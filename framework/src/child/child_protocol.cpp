#include "child/child_protocol.h"

#include <ATen/ATen.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <nlohmann/json.hpp>
#include <system_error>

#include "casebook/internal_error.h"
#include "tensors/materialise.h"

namespace casebook {
namespace {

using nlohmann::json;

std::string status_name(ChildReport::Status status) {
  switch (status) {
    case ChildReport::Status::kOutputs:
      return "outputs";
    case ChildReport::Status::kSkipped:
      return "skipped";
    case ChildReport::Status::kError:
      break;
  }
  return "error";
}

ChildReport::Status parse_status(const std::string& name) {
  if (name == "outputs") return ChildReport::Status::kOutputs;
  if (name == "skipped") return ChildReport::Status::kSkipped;
  return ChildReport::Status::kError;
}

}  // namespace

std::string encode_request(const RunRequest& request) {
  json j = {{"case", request.case_index},
            {"backend", std::string(backend_name(request.backend))},
            {"kind", static_cast<int>(request.kind)},
            {"output_dir", request.output_dir}};
  if (request.synchronise_steps) j["synchronise_steps"] = true;
  if (request.then_kind) {
    j["then"] = {{"kind", static_cast<int>(*request.then_kind)},
                 {"output_dir", request.then_output_dir}};
  }
  return j.dump() + "\n";
}

RunRequest decode_request(const std::string& line) {
  json j = json::parse(line);
  RunRequest request;
  request.case_index = j.at("case").get<size_t>();
  request.backend = parse_backend(j.at("backend").get<std::string>()).value();
  request.kind = static_cast<JobKind>(j.at("kind").get<int>());
  request.output_dir = j.at("output_dir").get<std::string>();
  request.synchronise_steps = j.value("synchronise_steps", false);
  if (j.contains("then")) {
    request.then_kind = static_cast<JobKind>(j["then"].at("kind").get<int>());
    request.then_output_dir = j["then"].at("output_dir").get<std::string>();
  }
  return request;
}

std::string encode_report(const ChildReport& report) {
  json outputs = json::array();
  for (const TensorFile& file : report.outputs) {
    outputs.push_back({{"path", file.path},
                       {"dtype", file.dtype},
                       {"shape", file.shape},
                       {"name", file.name}});
  }
  json j = {{"status", status_name(report.status)},
            {"family", std::string(family_name(report.family))},
            {"message", report.message},
            {"exception_type", report.exception_type},
            {"consequences", report.consequences},
            {"outputs", outputs},
            {"poisoned", report.poisoned},
            {"seconds", report.seconds}};
  if (report.positions) j["positions"] = *report.positions;
  if (report.processed) j["processed"] = *report.processed;
  if (report.step) j["step"] = *report.step;
  if (report.internal) j["internal"] = true;
  // Messages may hold any bytes a library printed; keep the line valid JSON.
  return j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

ChildReport decode_report(const std::string& line) {
  ChildReport report;
  json j;
  try {
    j = json::parse(line);
  } catch (const std::exception& error) {
    // Not JSON: the child's process wrote over its own report (the op's
    // code runs there, a broken kernel too), which is the run's crash, not
    // casebook's.
    report.family = Family::kCrash;
    report.message = std::string("unreadable child report (") + error.what() +
                     "): the run's process wrote over it";
    return report;
  }
  try {
    report.status = parse_status(j.at("status").get<std::string>());
    report.family =
        parse_family(j.at("family").get<std::string>()).value_or(Family::kNone);
    report.message = j.at("message").get<std::string>();
    report.exception_type = j.at("exception_type").get<std::string>();
    report.consequences = j.at("consequences").get<std::vector<std::string>>();
    for (const json& out : j.at("outputs")) {
      report.outputs.push_back({out.at("path").get<std::string>(),
                                out.at("dtype").get<std::string>(),
                                out.at("shape").get<std::vector<int64_t>>(),
                                out.value("name", std::string())});
    }
    report.poisoned = j.at("poisoned").get<bool>();
    report.seconds = j.at("seconds").get<double>();
    if (j.contains("positions")) {
      report.positions = j.at("positions").get<std::vector<int64_t>>();
    }
    if (j.contains("processed")) {
      report.processed = j.at("processed").get<int64_t>();
    }
    if (j.contains("step")) report.step = j.at("step").get<int>();
    report.internal = j.value("internal", false);
  } catch (const std::exception& error) {
    // JSON without the protocol's fields: the child and the runner disagree
    // about the protocol, which is casebook's own fault.
    report = ChildReport{};
    report.internal = true;
    report.message = InternalError(
                         "child report without the protocol's "
                         "fields (" +
                         std::string(error.what()) + ")")
                         .what();
  }
  return report;
}

TensorFile write_tensor_file(const at::Tensor& tensor,
                             const std::string& path) {
  // A conjugate or negative view (aten::conj) holds its bits unresolved:
  // the file gets the values, not the view's storage.
  at::Tensor host =
      tensor.to(at::kCPU).resolve_conj().resolve_neg().contiguous();
  auto dtype = to_dtype(host.scalar_type());
  if (!dtype) {
    throw std::runtime_error(std::string("output dtype ") +
                             c10::toString(host.scalar_type()) +
                             " is not one casebook compares");
  }
  const size_t bytes = host.numel() * host.element_size();
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) throw std::system_error(errno, std::generic_category(), path);
  const char* data = static_cast<const char*>(host.data_ptr());
  size_t done = 0;
  while (done < bytes) {
    ssize_t n = write(fd, data + done, bytes - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int saved = errno;
      close(fd);
      throw std::system_error(saved, std::generic_category(), path);
    }
    done += static_cast<size_t>(n);
  }
  close(fd);
  return {path, std::string(dtype_name(*dtype)),
          std::vector<int64_t>(host.sizes().begin(), host.sizes().end())};
}

std::vector<at::Tensor> read_report_outputs(ChildReport* report) {
  std::vector<at::Tensor> outputs;
  if (report->status != ChildReport::Status::kOutputs) return outputs;
  try {
    for (const TensorFile& file : report->outputs) {
      outputs.push_back(map_tensor_file(file));
    }
  } catch (const std::exception& error) {
    report->status = ChildReport::Status::kError;
    report->internal = true;
    report->family = Family::kNone;
    report->message =
        InternalError(std::string("outputs unreadable: ") + error.what())
            .what();
    report->consequences.clear();
    report->outputs.clear();
    outputs.clear();
  }
  return outputs;
}

at::Tensor map_tensor_file(const TensorFile& file) {
  auto dtype = parse_dtype(file.dtype);
  if (!dtype)
    throw std::runtime_error("unknown dtype in report: " + file.dtype);
  auto options = at::TensorOptions().dtype(to_scalar_type(*dtype));
  int64_t numel = 1;
  for (int64_t size : file.shape) numel *= size;
  if (numel == 0) return at::empty(file.shape, options);
  int fd = open(file.path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    throw std::system_error(errno, std::generic_category(), file.path);
  struct stat info{};
  fstat(fd, &info);
  const size_t bytes = static_cast<size_t>(info.st_size);
  void* data = mmap(nullptr, bytes, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (data == MAP_FAILED) {
    throw std::system_error(errno, std::generic_category(),
                            "mmap " + file.path);
  }
  const size_t expected =
      static_cast<size_t>(numel) * c10::elementSize(to_scalar_type(*dtype));
  if (bytes < expected) {
    munmap(data, bytes);
    throw std::runtime_error("tensor file " + file.path + " is short");
  }
  // MAP_PRIVATE pages are copy-on-write: a comparison never writes, so no
  // page is copied; the tensor is read-only in practice.
  return at::from_blob(
      data, file.shape, [bytes](void* ptr) { munmap(ptr, bytes); }, options);
}

}  // namespace casebook
