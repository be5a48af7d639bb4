// "did you mean" for the closed sets of names a case and the command line
// take (dtypes, error families, backends), built on nearest_names()
// (casebook/loader.h), the one rule keys, ops and arguments use. A name as
// Python or another habit spells it is mapped first: `torch.float32` and
// `float` are float32, `torch.long` int64, `device-assert` device_assert.
#pragma once

#include <string>
#include <vector>

namespace casebook {

// The dtype name `given` most likely means, or empty when none is close.
std::string suggest_dtype(const std::string& given);
// The error family name, or empty.
std::string suggest_family(const std::string& given);
// The backend names `given` may mean: the nearest of cpu, cuda, hip, or
// for a word that names no backend but a kind of device, each backend of
// that kind (`gpu`: cuda and hip; `rocm`: hip; `cuda:0`: cuda). Empty when
// none is close.
std::vector<std::string> suggest_backends(const std::string& given);
// The one backend suggest_backends gives, or empty (none, or several).
std::string suggest_backend(const std::string& given);

// "; did you mean `float32`?", or empty for an empty suggestion.
std::string did_you_mean(const std::string& suggestion);
// "; did you mean `cuda` or `hip`?", or empty for none.
std::string did_you_mean(const std::vector<std::string>& suggestions);

// An op as PyTorch's Python spells it, as a case names it: a function of
// torch.nn.functional (`torch.nn.functional.cross_entropy`,
// `F.cross_entropy`) is `torch.cross_entropy`; a module class
// (`nn.CrossEntropyLoss`, `torch.nn.NLLLoss`) is the function it calls
// (`torch.cross_entropy`, `torch.nll_loss`). Empty for any other name. The
// caller says whether an op of that name exists: this only spells.
std::string python_op_spelling(const std::string& given);

}  // namespace casebook
