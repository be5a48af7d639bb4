#include "runner/json_results.h"

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <utility>

#include "files/file_writer.h"

namespace casebook {
namespace {

using Json = nlohmann::ordered_json;

// A verdict's texts and their keys in a record, written and read by this one
// list.
struct TextField {
  const char* key;
  std::string CaseVerdict::* member;
};
const TextField kTextFields[] = {
    {"message", &CaseVerdict::message},
    {"explanation", &CaseVerdict::explanation},
    {"expectation_reason", &CaseVerdict::expectation_reason},
    {"first_error", &CaseVerdict::first_error},
    {"details", &CaseVerdict::details},
    {"step_location", &CaseVerdict::step_location},
    {"failing_step", &CaseVerdict::failing_step},
    {"evidence", &CaseVerdict::evidence_dir},
    {"rerun", &CaseVerdict::rerun_command}};

// The verdict's fields as the record holds them: what it has, in one order.
Json verdict_record(const CaseVerdict& verdict) {
  Json record;
  record["case"] = verdict.case_id;
  record["backend"] = std::string(backend_name(verdict.backend));
  record["verdict"] = std::string(verdict_name(verdict.verdict));
  if (verdict.family != Family::kNone) {
    record["family"] = std::string(family_name(verdict.family));
  }
  for (const auto& [key, member] : kTextFields) {
    if (!(verdict.*member).empty()) record[key] = verdict.*member;
  }
  if (!verdict.consequences.empty()) {
    record["consequences"] = verdict.consequences;
  }
  if (verdict.poisoned_worker) record["poisoned_worker"] = true;
  if (verdict.poison_confirmed) record["poison_confirmed"] = true;
  if (verdict.backend_absent) record["backend_absent"] = true;
  if (!verdict.file.empty()) record["file"] = verdict.file.string();
  if (verdict.line > 0) record["line"] = verdict.line;
  record["seconds"] = verdict.seconds;
  return record;
}

// The record's `key` as text; "" when absent. Throws when it is no text.
std::string text_of(const Json& record, const char* key) {
  const auto found = record.find(key);
  if (found == record.end()) return {};
  if (!found->is_string()) {
    throw std::runtime_error(std::string("`") + key + "` is not a text");
  }
  return found->get<std::string>();
}

// `name` read by `parse`, or an error naming the key and the value.
template <typename Parse>
auto required_name(const Json& record, const char* key, Parse parse) {
  const std::string name = text_of(record, key);
  const auto parsed = parse(name);
  if (!parsed) {
    throw std::runtime_error(std::string("`") + key + "`: `" + name +
                             "` is none that this casebook knows");
  }
  return *parsed;
}

CaseVerdict verdict_from(const Json& record) {
  CaseVerdict verdict;
  verdict.case_id = text_of(record, "case");
  if (verdict.case_id.empty()) throw std::runtime_error("no `case`");
  verdict.backend = required_name(record, "backend", parse_backend);
  verdict.verdict = required_name(record, "verdict", parse_verdict);
  if (record.contains("family")) {
    verdict.family = required_name(record, "family", parse_family);
  }
  for (const auto& [key, member] : kTextFields) {
    verdict.*member = text_of(record, key);
  }
  verdict.consequences =
      record.value("consequences", std::vector<std::string>());
  verdict.poisoned_worker = record.value("poisoned_worker", false);
  verdict.poison_confirmed = record.value("poison_confirmed", false);
  verdict.backend_absent = record.value("backend_absent", false);
  verdict.file = text_of(record, "file");
  verdict.line = record.value("line", 0);
  verdict.seconds = record.value("seconds", 0.0);
  return verdict;
}

class JsonResultsWriter : public RunListener {
 public:
  explicit JsonResultsWriter(std::filesystem::path file)
      : file_(std::move(file)) {}
  void on_end(const RunEnd& end) override {
    try {
      write_file(file_, results_json_text(end.summary, end.environment),
                 OnExisting::kReplace, false);
    } catch (const std::exception& error) {
      error_ = std::string("--json: ") + error.what();
    }
  }
  std::string write_error() const override { return error_; }

 private:
  std::filesystem::path file_;
  std::string error_;
};

}  // namespace

std::string results_json_text(const RunSummary& summary,
                              const Environment& environment) {
  Json document;
  document["casebook_results"] = kResultsFormat;
  document["exit_code"] = summary.exit_code();
  document["interrupted"] = summary.interrupted;
  Json facts = Json::object();
  for (const auto& [key, value] : environment) facts[key] = value;
  document["environment"] = std::move(facts);
  Json counts = Json::object();
  for (const auto& [verdict, count] : summary.counts()) {
    if (count > 0) counts[std::string(verdict_name(verdict))] = count;
  }
  document["counts"] = std::move(counts);
  Json records = Json::array();
  for (const CaseVerdict& verdict : summary.verdicts) {
    records.push_back(verdict_record(verdict));
  }
  document["verdicts"] = std::move(records);
  // Invalid UTF-8 (a message quoting bytes of a file) is replaced, not
  // refused: the document is written whatever a message holds.
  return document.dump(1, ' ', false, Json::error_handler_t::replace) + "\n";
}

RunSummary read_results_json(const std::string& text) {
  const Json document = Json::parse(text, nullptr, false);
  if (document.is_discarded() || !document.is_object()) {
    throw std::runtime_error("not a JSON object");
  }
  const Json format = document.value("casebook_results", Json());
  if (format != kResultsFormat) {
    throw std::runtime_error("results format " + format.dump() +
                             "; this casebook reads " +
                             std::to_string(kResultsFormat));
  }
  RunSummary summary;
  summary.interrupted = document.value("interrupted", false);
  const Json records = document.value("verdicts", Json::array());
  for (size_t index = 0; index < records.size(); ++index) {
    try {
      if (!records[index].is_object()) throw std::runtime_error("no object");
      summary.verdicts.push_back(verdict_from(records[index]));
    } catch (const std::exception& error) {
      throw std::runtime_error("verdicts[" + std::to_string(index) +
                               "]: " + error.what());
    }
  }
  return summary;
}

std::unique_ptr<RunListener> json_results_writer(std::filesystem::path file) {
  return std::make_unique<JsonResultsWriter>(std::move(file));
}

}  // namespace casebook
