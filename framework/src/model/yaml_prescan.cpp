#include "model/yaml_prescan.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>

#include <sstream>
#include <vector>

#include "casebook/limits.h"

namespace casebook::model {
namespace {

constexpr size_t kMaxReportedAnchors = 20;

const char kFixtureAdvice[] =
    "; large data belongs in a fixture (a .npy, .safetensors or .pt file "
    "under fixtures/, named by `file:`)";

// Thrown by the handler to end the walk at a budget.
struct BudgetExceeded {};

class Prescan : public YAML::EventHandler {
 public:
  Prescan(Reader& reader, const LoadLimits& limits)
      : reader_(reader), limits_(limits) {}

  bool refused() const { return refused_; }

  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t) override { node(mark); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    node(mark);
    const std::string name = anchor >= 1 && anchor <= anchor_names_.size()
                                 ? anchor_names_[anchor - 1]
                                 : std::string("?");
    refuse(mark, "YAML alias `*" + name +
                     "` is not accepted in a case file: write the value out "
                     "(aliases let a small file expand into a huge one)");
  }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                const std::string&) override {
    node(mark);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&,
                       YAML::anchor_t, YAML::EmitterStyle::value) override {
    open(mark);
  }
  void OnSequenceEnd() override { --depth_; }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {
    open(mark);
  }
  void OnMapEnd() override { --depth_; }
  void OnAnchor(const YAML::Mark& mark, const std::string& name) override {
    anchor_names_.push_back(name);
    refuse(mark, "YAML anchor `&" + name +
                     "` is not accepted in a case file: write the value out "
                     "(anchors and aliases let a small file expand into a "
                     "huge one)");
  }

 private:
  SourceLocation at(const YAML::Mark& mark) const {
    return SourceLocation{reader_.file(), mark.line + 1, mark.column + 1};
  }
  void refuse(const YAML::Mark& mark, const std::string& message) {
    refused_ = true;
    if (++anchor_errors_ <= kMaxReportedAnchors) {
      reader_.error(at(mark), "", message);
    }
  }
  void node(const YAML::Mark& mark) {
    if (++nodes_ <= limits_.max_nodes) return;
    refused_ = true;
    reader_.error(at(mark), "",
                  "more than " + std::to_string(limits_.max_nodes) +
                      " YAML nodes: over the limit for a case file" +
                      kFixtureAdvice);
    throw BudgetExceeded{};
  }
  void open(const YAML::Mark& mark) {
    node(mark);
    if (++depth_ <= limits_.max_depth) return;
    refused_ = true;
    reader_.error(at(mark), "",
                  "lists and maps nested more than " +
                      std::to_string(limits_.max_depth) +
                      " deep: over the limit for a case file (a case needs "
                      "a few levels)");
    throw BudgetExceeded{};
  }

  Reader& reader_;
  const LoadLimits& limits_;
  std::vector<std::string> anchor_names_;
  uint64_t nodes_ = 0;
  int depth_ = 0;
  size_t anchor_errors_ = 0;
  bool refused_ = false;
};

}  // namespace

bool prescan_yaml(const std::string& text, Reader& reader) {
  std::istringstream stream(text);
  Prescan handler(reader, load_limits());
  try {
    YAML::Parser parser(stream);
    while (parser.HandleNextDocument(handler)) {
    }
  } catch (const BudgetExceeded&) {
    return false;
  } catch (const YAML::Exception&) {
    // The tree loader reports it, with its mark, unless something was
    // already refused before it.
  }
  return !handler.refused();
}

}  // namespace casebook::model
