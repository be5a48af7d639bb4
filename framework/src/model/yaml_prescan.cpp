#include "model/yaml_prescan.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>

#include <exception>
#include <sstream>
#include <unordered_map>
#include <vector>

#include "casebook/limits.h"
#include "casebook/printable.h"

namespace casebook::model {
namespace {

// The most refusals (anchors, aliases, tags, long scalars, control
// characters) reported of one file.
constexpr size_t kMaxReportedRefusals = 20;

const char kFixtureAdvice[] =
    "; large data belongs in a fixture (a .npy, .safetensors or .pt file "
    "under fixtures/, named by `file:`)";

// Thrown by the handler to end the walk at a budget.
struct BudgetExceeded : std::exception {};

class Prescan : public YAML::EventHandler {
 public:
  Prescan(Reader& reader, const LoadLimits& limits)
      : reader_(reader), limits_(limits) {}

  bool refused() const { return refused_; }

  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t) override {
    node(mark);
    next_in_parent(mark, nullptr);
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    node(mark);
    next_in_parent(mark, nullptr);
    const std::string name = anchor >= 1 && anchor <= anchor_names_.size()
                                 ? anchor_names_[anchor - 1]
                                 : std::string("?");
    refuse(mark, "YAML alias `*" + name +
                     "` is not accepted in a case file: write the value out "
                     "(aliases let a small file expand into a huge one)");
  }
  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t,
                const std::string& value) override {
    node(mark);
    check_tag(mark, tag);
    if (value.size() > limits_.max_scalar_bytes) {
      refuse(mark, "a scalar of " + std::to_string(value.size()) +
                       " bytes: over the limit of " +
                       std::to_string(limits_.max_scalar_bytes) +
                       " bytes for one key, name or string of a case file" +
                       kFixtureAdvice);
      next_in_parent(mark, nullptr);
      return;
    }
    if (printable_text(value) != value) {
      // An escape sequence, a bell or a carriage return in a case's text
      // would reach a terminal or forge a line wherever it is shown.
      refuse(mark, "a control character in `" +
                       printable_line(bounded_text(value, 60)) +
                       "`: a case file's text is printable (a newline or a "
                       "tab aside)");
    }
    next_in_parent(mark, &value);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string& tag,
                       YAML::anchor_t, YAML::EmitterStyle::value) override {
    open(mark, tag, false);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string& tag,
                  YAML::anchor_t, YAML::EmitterStyle::value) override {
    open(mark, tag, true);
  }
  void OnMapEnd() override { close(); }
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
    if (++refusals_ <= kMaxReportedRefusals) {
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
  // A list or map being read: its key path, and for a map the keys seen
  // (with their lines) and whether the next node is a key.
  struct Open {
    bool map = false;
    bool expecting_key = true;
    size_t items = 0;
    std::string path;
    std::string key_path;  // the path of the value after the last key
    std::unordered_map<std::string, int> key_lines;
  };

  void open(const YAML::Mark& mark, const std::string& tag, bool map) {
    node(mark);
    check_tag(mark, tag);
    std::string path = next_in_parent(mark, nullptr);
    if (++depth_ > limits_.max_depth) {
      refused_ = true;
      reader_.error(at(mark), "",
                    "lists and maps nested more than " +
                        std::to_string(limits_.max_depth) +
                        " deep: over the limit for a case file (a case needs "
                        "a few levels)");
      throw BudgetExceeded{};
    }
    Open opened;
    opened.map = map;
    opened.path = std::move(path);
    open_.push_back(std::move(opened));
  }
  void close() {
    --depth_;
    if (!open_.empty()) open_.pop_back();
  }

  // Places a node in the list or map that holds it and returns its key
  // path. A key of a map (`key`, when it is a scalar) given twice is an
  // error at its second place, as the docs say, whatever map holds it: the
  // tree reader keeps the first and says nothing more.
  std::string next_in_parent(const YAML::Mark& mark, const std::string* key) {
    if (open_.empty()) return "";
    Open& parent = open_.back();
    if (!parent.map) {
      return parent.path + "[" + std::to_string(parent.items++) + "]";
    }
    parent.expecting_key = !parent.expecting_key;
    if (parent.expecting_key) return parent.key_path;  // a value
    parent.key_path = join_path(parent.path, key ? *key : "?");
    if (key == nullptr) return parent.key_path;
    const int line = static_cast<int>(mark.line) + 1;
    const auto [seen, inserted] = parent.key_lines.emplace(*key, line);
    if (!inserted) {
      reader_.error(at(mark), parent.key_path,
                    "duplicate key `" + *key + "`; first given at line " +
                        std::to_string(seen->second));
    }
    return parent.key_path;
  }

  // casebook reads plain scalars by YAML's core schema and quoted ones as
  // strings; a tag (`!!python/object/new:`, `!!str`, `!local`) would ask
  // for another reading, which no case needs and which a YAML library
  // elsewhere might honour. "?" is an untagged node, "!" a quoted scalar.
  void check_tag(const YAML::Mark& mark, const std::string& tag) {
    if (tag.empty() || tag == "?" || tag == "!") return;
    std::string shown = tag;
    const std::string core = "tag:yaml.org,2002:";
    if (shown.rfind(core, 0) == 0) shown = "!!" + shown.substr(core.size());
    refuse(mark, "YAML tag `" + printable_line(bounded_text(shown, 80)) +
                     "` is not accepted in a case file: write the value "
                     "plainly (a tag asks a YAML reader to build an object)");
  }

  Reader& reader_;
  const LoadLimits& limits_;
  std::vector<std::string> anchor_names_;
  std::vector<Open> open_;
  uint64_t nodes_ = 0;
  int depth_ = 0;
  size_t refusals_ = 0;
  bool refused_ = false;
};

}  // namespace

bool prescan_yaml(const std::string& text, Reader& reader) {
  const size_t valid = utf8_prefix_length(text);
  if (valid < text.size()) {
    reader.error(location_of_byte(text, valid, reader.file()), "",
                 "a byte that is not UTF-8 (" +
                     printable_line(text.substr(valid, 1)) +
                     "): a case file is UTF-8 text");
    return false;
  }
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
    return !handler.refused();
  }
  return !handler.refused();
}

}  // namespace casebook::model
