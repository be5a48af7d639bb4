// validate.* ops: input contracts checked on the host before any transfer,
// so that a bad batch is rejected with its positions instead of tripping a
// device-side assert that poisons the GPU process.
#include <sstream>

#include "casebook/joined.h"
#include "casebook/ops.h"
#include "casebook/shape_text.h"
#include "ops/op_declarations.h"
#include "ops/op_helpers.h"

namespace casebook {
namespace {

// The class-index contract of cross_entropy / nll_loss: a 1-D int64 target
// whose entries are ignore_index or in [0, num_classes), and at least one
// that is not ignored (a batch of only ignored targets gives a NaN mean).
// On success the target is the output, unchanged, so every backend's
// outputs compare equal.
std::vector<at::Tensor> class_targets(const OpCall& call) {
  const at::Tensor& target = call.input(0);
  const int64_t num_classes =
      required_int(call, kClassTargetsOp, "num_classes");
  CASEBOOK_CHECK_INPUT(num_classes > 0, call.arg_where("num_classes"),
                       "argument `num_classes`: expected a positive "
                       "integer, got " +
                           std::to_string(num_classes));
  const int64_t ignore_index = call.arg_int("ignore_index", -100);
  if (target.dim() != 1 || target.scalar_type() != at::kLong) {
    throw OpError(Family::kContract,
                  "targets must be a 1-D int64 tensor, got a " +
                      std::to_string(target.dim()) + "-d " +
                      std::string(c10::toString(target.scalar_type())) +
                      " tensor of shape " + shape_text(target.sizes()));
  }
  const at::Tensor host = target.to(at::kCPU).contiguous();
  const int64_t* values = host.data_ptr<int64_t>();
  std::vector<int64_t> positions;
  std::vector<std::string> rejected;
  int64_t usable = 0;
  for (int64_t i = 0; i < host.numel(); ++i) {
    if (values[i] == ignore_index) continue;
    ++usable;
    if (values[i] < 0 || values[i] >= num_classes) {
      positions.push_back(i);
      rejected.push_back(std::to_string(values[i]) + " at position " +
                         std::to_string(i));
    }
  }
  // Every entry was examined (an ignored one too: it was compared with
  // ignore_index); a check that stopped early would count fewer.
  call.report_count(host.numel(), positions);
  const std::string range = "[0, " + std::to_string(num_classes) + ")";
  if (rejected.size() == 1) {
    throw OpError(Family::kIndexOutOfRange,
                  "class index " + rejected[0] + " is outside " + range,
                  positions);
  }
  if (!rejected.empty()) {
    throw OpError(Family::kIndexOutOfRange,
                  "class indices " + joined(rejected) + " are outside " + range,
                  positions);
  }
  if (usable == 0) {
    throw OpError(Family::kContract, "no usable target in this batch");
  }
  return {target};
}

}  // namespace

void register_validate_ops(OpRegistry& registry) {
  OpDef def =
      make_op(CASEBOOK_OP_SITE, validate_class_targets_declaration(),
              {"target"}, {}, {"num_classes", "ignore_index"}, class_targets);
  def.placement = OpDef::Placement::kHost;
  registry.add(std::move(def));
  register_class_mapping_op(registry);
}

}  // namespace casebook
