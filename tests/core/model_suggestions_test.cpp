// Did-you-mean for the closed sets of names (issue 23): a dtype as Python
// spells it, an error family with a dash, a misspelt backend.
#include <gtest/gtest.h>

#include "casebook/suggestions.h"
#include "model_malformed.h"

namespace casebook {
namespace {

using testing_malformed::kDtypes;
using testing_malformed::kFamilies;
using testing_malformed::messages_of;
using testing_malformed::with_extra;
using testing_malformed::with_input;

TEST(Suggestions, DtypesAsPythonSpellsThem) {
  EXPECT_EQ(suggest_dtype("torch.float32"), "float32");
  EXPECT_EQ(suggest_dtype("torch.long"), "int64");
  EXPECT_EQ(suggest_dtype("float"), "float32");
  EXPECT_EQ(suggest_dtype("torch.double"), "float64");
  EXPECT_EQ(suggest_dtype("flaot16"), "float16");
  EXPECT_EQ(suggest_dtype("quaternion"), "");
  EXPECT_EQ(messages_of(with_input("{dtype: torch.long, values: [1]}")),
            std::vector<std::string>{
                "cases/bad.yaml:5:14: `inputs.x.dtype`: expected one of " +
                kDtypes + "; got `torch.long`; did you mean `int64`?"});
}

TEST(Suggestions, FamiliesAndBackends) {
  EXPECT_EQ(suggest_family("device-assert"), "device_assert");
  EXPECT_EQ(suggest_family("Index-Out-Of-Range"), "index_out_of_range");
  EXPECT_EQ(suggest_backend("cdua"), "cuda");
  EXPECT_EQ(suggest_backend("rocm"), "");
  EXPECT_EQ(messages_of(with_extra("expect: {cpu: {error: device-assert}}\n")),
            std::vector<std::string>{
                "cases/bad.yaml:6:23: `expect.cpu.error`: expected one of " +
                kFamilies +
                "; got `device-assert`; did you mean "
                "`device_assert`?"});
}

}  // namespace
}  // namespace casebook
