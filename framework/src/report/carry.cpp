#include "report/carry.h"

#include <cctype>
#include <fstream>
#include <functional>
#include <sstream>
#include <utility>

#include "casebook/case_writer.h"
#include "casebook/joined.h"
#include "casebook/limits.h"
#include "casebook/loader.h"
#include "diagnosis/case_text.h"
#include "files/file_writer.h"
#include "tensors/fixtures.h"
#include "tensors/materialise.h"
#include "tensors/values_text.h"

namespace casebook {
namespace fs = std::filesystem;
namespace {

std::string file_text(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Every tensor of the case that a file may hold: inputs, expected outputs
// (top-level and per backend), gradients fed to outputs.
void for_each_tensor(
    Case& kase, const std::function<void(TensorSpec&, std::string)>& visit) {
  for (TensorSpec& spec : kase.inputs) {
    // An alias is written `{same_as: NAME}`: no file of its own.
    if (spec.same_as.empty()) visit(spec, spec.name);
  }
  auto outputs = [&](std::vector<OutputExpectation>& list,
                     const std::string& where) {
    for (OutputExpectation& output : list) {
      if (output.values) visit(*output.values, where + output.key);
    }
  };
  outputs(kase.outputs, "outputs.");
  for (auto& [backend, entries] : kase.expect_entries) {
    for (Expectation& entry : entries) {
      outputs(entry.outputs,
              "expect." + std::string(backend_name(backend)) + ".outputs.");
    }
  }
  if (kase.grad) {
    for (TensorSpec& spec : kase.grad->grad_outputs) {
      visit(spec, "grad_outputs." + spec.name);
    }
  }
}

// The path of a `file` as written, without its `#tensor`.
std::string fixture_path(const TensorSpec& spec) {
  return spec.file.substr(0, spec.file.find('#'));
}

// A small fixture's values as `values`; false when it is too large or
// cannot be read (the run's own message says why).
bool inline_values(TensorSpec& spec) {
  if (spec.shape_given && element_count(spec.shape) > kInlineFixtureElements) {
    return false;
  }
  at::Tensor values;
  try {
    values = read_only_values(spec);
  } catch (const std::exception&) {
    return false;
  }
  if (!to_dtype(values.scalar_type()) ||
      static_cast<uint64_t>(values.numel()) > kInlineFixtureElements) {
    return false;
  }
  TensorSpec inlined = values_spec(spec.name, values);
  inlined.layout = spec.layout;  // how it sits in memory: kept
  inlined.where = spec.where;
  spec = std::move(inlined);
  return true;
}

CarriedFixture carried_fixture(const TensorSpec& spec,
                               const std::string& name) {
  CarriedFixture fixture;
  fixture.shown.input = name;
  fixture.shown.file = fixture_path(spec);
  fixture.source = spec.resolved_file;
  std::error_code error;
  fixture.shown.bytes = fs::file_size(spec.resolved_file, error);
  try {
    fixture.shown.sha256 = sha256_file(spec.resolved_file);
  } catch (const std::exception&) {
    fixture.shown.sha256 = spec.sha256;
  }
  return fixture;
}

// label_out_of_range_label_limits_C-1.yaml for the neighbour
// `cross_entropy/label_out_of_range~label_limits[C-1]`: a plain file name,
// so the written case gets an id of its own.
std::string neighbour_file_name(const fs::path& base, const std::string& id) {
  std::string name = base.stem().string();
  const size_t tilde = id.find('~');
  if (tilde == std::string::npos) return name + ".yaml";
  name += '_';
  for (char c : id.substr(tilde + 1)) {
    if (c == ']') continue;
    name += std::isalnum(static_cast<unsigned char>(c)) || c == '-' ? c : '_';
  }
  return name + ".yaml";
}

}  // namespace

CarriedCase carry_case(const PlannedCase& planned, const fs::path& file) {
  CarriedCase carried;
  Case kase = planned.value();
  std::vector<std::string> inlined;
  for_each_tensor(kase, [&](TensorSpec& spec, const std::string& name) {
    if (spec.source == TensorSpec::Source::kFile && inline_values(spec)) {
      inlined.push_back(name);
    }
  });
  for_each_tensor(kase, [&](TensorSpec& spec, const std::string& name) {
    if (spec.source != TensorSpec::Source::kFile) return;
    carried.fixtures.push_back(carried_fixture(spec, name));
    spec.file = fixture_path(spec);  // case_to_yaml adds `#tensor` itself
  });
  carried.file_name = planned.neighbor
                          ? neighbour_file_name(file, planned.loaded.id)
                          : file.filename().string();
  if (!planned.neighbor && inlined.empty()) {
    // The author's own text, comments and all; its neighbours are runs of
    // their own, not this one.
    const std::string text = file_text(file);
    if (kase.neighbors.empty()) {
      carried.text = text;
      carried.note = "the file as written";
      return carried;
    }
    if (auto without = without_top_level_key(text, "neighbors")) {
      carried.text = *without;
      carried.note =
          "the file as written, without its `neighbors` (each is a run of "
          "its own)";
      return carried;
    }
  }
  const bool declares_neighbors = !kase.neighbors.empty();
  kase.neighbors.clear();  // this run only: each neighbour is a run of its own
  carried.text = case_to_yaml(kase);
  std::string why;
  if (planned.neighbor) {
    const std::string& id = planned.loaded.id;
    why = "this run is a neighbour its file declares (`" +
          id.substr(id.find('~') + 1) + "`), written in no file";
  } else if (declares_neighbors) {
    why = "its `neighbors` left out (each is a run of its own)";
  }
  if (!inlined.empty()) {
    why += std::string(why.empty() ? "" : "; ") + "fixtures of at most " +
           std::to_string(kInlineFixtureElements) +
           " elements inlined as `values` (" + joined(inlined) + ")";
  }
  carried.note = "written out from the run: " + why;
  return carried;
}

bool write_bundle(const fs::path& folder, const CarriedCase& carried,
                  const ReportInput& clean,
                  const std::vector<PythonInputFile>& python_inputs,
                  const std::string& markdown, std::string* error) {
  const fs::path case_file = folder / carried.file_name;
  std::vector<std::pair<fs::path, fs::path>> copies;  // from, to
  for (size_t i = 0; i < carried.fixtures.size(); ++i) {
    copies.emplace_back(carried.fixtures[i].source,
                        folder / "fixtures" / clean.fixtures.at(i).file);
  }
  std::vector<fs::path> targets = {case_file, folder / "report.md"};
  if (!clean.python_script.empty()) targets.push_back(folder / "reproduce.py");
  for (const auto& [from, to] : copies) targets.push_back(to);
  for (const std::string& file : clean.python_files) {
    targets.push_back(folder / file);
  }
  for (const fs::path& target : targets) {
    std::error_code failed;
    // The name itself: a dangling link planted there exists too.
    if (fs::exists(fs::symlink_status(target, failed))) {
      *error = target.string() + " exists (a bundle never overwrites a file)";
      return false;
    }
  }
  try {
    write_file(case_file, clean.case_file_text, OnExisting::kRefuse);
    write_file(folder / "report.md", markdown, OnExisting::kRefuse);
    if (!clean.python_script.empty()) {
      write_file(folder / "reproduce.py", clean.python_script,
                 OnExisting::kRefuse);
    }
    for (const auto& [from, to] : copies) {
      copy_file_to(from, to, OnExisting::kRefuse);
    }
    for (size_t i = 0; i < python_inputs.size(); ++i) {
      write_npy(folder / clean.python_files.at(i), python_inputs[i].values,
                OnExisting::kRefuse);
    }
  } catch (const WriteError& what) {
    *error = what.what();
    return false;
  }
  // As the recipient's casebook will read it.
  const LoadedCase loaded = load_case_file(case_file);
  if (!loaded.ok()) {
    *error = "the bundle's case file does not load: " +
             loaded.errors.front().to_string();
    return false;
  }
  return true;
}

}  // namespace casebook
