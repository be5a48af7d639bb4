// The run's results as data (runner/json_results.h): what `casebook run
// --json` writes is read back as written, every verdict with its family and
// message (NOT RUN, whose name holds a space, and INTERNAL included), every
// field a verdict has; a document of another format version, or naming a
// verdict this casebook does not know, is refused with where.
#include "runner/json_results.h"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "casebook/verdict_list.h"

namespace casebook {
namespace {

std::vector<Verdict> every_verdict() {
  std::vector<Verdict> verdicts;
#define CASEBOOK_TEST_VERDICT(enumerator, ...) \
  verdicts.push_back(Verdict::enumerator);
  CASEBOOK_FOR_EACH_VERDICT(CASEBOOK_TEST_VERDICT)
#undef CASEBOOK_TEST_VERDICT
  return verdicts;
}

TEST(JsonResults, EveryVerdictIsReadBackWithItsFamilyAndMessage) {
  RunSummary summary;
  for (Verdict verdict : every_verdict()) {
    CaseVerdict run;
    run.case_id = "cross_entropy/label_4";
    run.verdict = verdict;
    run.family = Family::kIndexOutOfRange;
    run.message = "Target 4 is out of bounds.";
    summary.verdicts.push_back(run);
  }
  const RunSummary read =
      read_results_json(results_json_text(summary, {{"libtorch", "2.13.0"}}));
  ASSERT_EQ(read.verdicts.size(), summary.verdicts.size());
  for (size_t i = 0; i < read.verdicts.size(); ++i) {
    SCOPED_TRACE(verdict_name(summary.verdicts[i].verdict));
    EXPECT_EQ(read.verdicts[i].verdict, summary.verdicts[i].verdict);
    EXPECT_EQ(read.verdicts[i].family, Family::kIndexOutOfRange);
    EXPECT_EQ(read.verdicts[i].message, "Target 4 is out of bounds.");
  }
}

TEST(JsonResults, EveryFieldAVerdictHasIsKept) {
  CaseVerdict full;
  full.case_id = "a/b~label_limits[0]";
  full.backend = Backend::kCuda;
  full.verdict = Verdict::kFail;
  full.family = Family::kDeviceAssert;
  full.message = "device-side assert triggered";
  full.explanation = "expected outputs, got device_assert";
  full.expectation_reason = "issue 12";
  full.first_error = "Assertion `t >= 0 && t < n_classes` failed.";
  full.consequences = {"CUDA error: device-side assert triggered"};
  full.details = "advice\nline two";
  full.step_location = "raised at step 3";
  full.failing_step = "item";
  full.evidence_dir = "casebook-evidence/a%2Fb.cuda";
  full.poisoned_worker = true;
  full.poison_confirmed = true;
  full.rerun_command = "casebook run a/b.yaml --backend cuda";
  full.file = "cases/a/b.yaml";
  full.line = 7;
  full.seconds = 0.25;
  RunSummary summary;
  summary.verdicts = {full, CaseVerdict{}};
  summary.verdicts[1].case_id = "a/c";
  summary.verdicts[1].backend_absent = true;
  summary.verdicts[1].verdict = Verdict::kSkip;
  summary.interrupted = true;
  const std::string text = results_json_text(summary, {});
  const RunSummary read = read_results_json(text);
  ASSERT_EQ(read.verdicts.size(), 2u);
  const CaseVerdict& back = read.verdicts[0];
  EXPECT_TRUE(read.interrupted);
  EXPECT_EQ(back.case_id, full.case_id);
  EXPECT_EQ(back.backend, full.backend);
  EXPECT_EQ(back.family, full.family);
  EXPECT_EQ(back.explanation, full.explanation);
  EXPECT_EQ(back.expectation_reason, full.expectation_reason);
  EXPECT_EQ(back.first_error, full.first_error);
  EXPECT_EQ(back.consequences, full.consequences);
  EXPECT_EQ(back.details, full.details);
  EXPECT_EQ(back.step_location, full.step_location);
  EXPECT_EQ(back.failing_step, full.failing_step);
  EXPECT_EQ(back.evidence_dir, full.evidence_dir);
  EXPECT_TRUE(back.poisoned_worker && back.poison_confirmed);
  EXPECT_EQ(back.rerun_command, full.rerun_command);
  EXPECT_EQ(back.file, full.file);
  EXPECT_EQ(back.line, 7);
  EXPECT_DOUBLE_EQ(back.seconds, 0.25);
  EXPECT_TRUE(read.verdicts[1].backend_absent);
  EXPECT_EQ(read.verdicts[1].family, Family::kNone);
  // What a verdict does not have is left out of its record.
  EXPECT_EQ(text.find("\"family\"", text.find("\"a/c\"")), std::string::npos)
      << text;
}

TEST(JsonResults, AnotherFormatOrAnUnknownVerdictIsRefusedSayingWhere) {
  const auto refusal = [](const std::string& text) {
    try {
      read_results_json(text);
    } catch (const std::runtime_error& error) {
      return std::string(error.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(refusal("<testsuite/>"), "not a JSON object");
  EXPECT_EQ(refusal(R"({"casebook_results": 2, "verdicts": []})"),
            "results format 2; this casebook reads 1");
  EXPECT_EQ(refusal(R"({"casebook_results": 1, "verdicts": [
        {"case": "a", "backend": "cpu", "verdict": "PASS", "seconds": 0},
        {"case": "b", "backend": "cpu", "verdict": "GREEN", "seconds": 0}]})"),
            "verdicts[1]: `verdict`: `GREEN` is none that this casebook knows");
  EXPECT_EQ(refusal(R"({"casebook_results": 1, "verdicts": [
        {"backend": "cpu", "verdict": "PASS"}]})"),
            "verdicts[0]: no `case`");
  EXPECT_EQ(refusal(R"({"casebook_results": 1, "verdicts": [
        {"case": "a", "backend": "cpu", "verdict": "PASS", "line": "7"}]})")
                .rfind("verdicts[0]: ", 0),
            0u);
}

// The schema's lists are casebook's: a verdict or family added to its
// X-macro list and not to schema/results.schema.json fails here.
TEST(JsonResults, TheSchemaListsEveryVerdictAndFamily) {
  std::ifstream file(std::string(CASEBOOK_SOURCE_DIR) +
                     "/schema/results.schema.json");
  const nlohmann::json schema = nlohmann::json::parse(file);
  const nlohmann::json& record = schema["definitions"]["verdict"]["properties"];
  std::vector<std::string> verdicts;
  for (Verdict verdict : every_verdict()) {
    verdicts.emplace_back(verdict_name(verdict));
  }
  EXPECT_EQ(record["verdict"]["enum"].get<std::vector<std::string>>(),
            verdicts);
  std::vector<std::string> families;
  for (Family family : all_families()) {
    families.emplace_back(family_name(family));
  }
  EXPECT_EQ(record["family"]["enum"].get<std::vector<std::string>>(), families);
  EXPECT_EQ(schema["properties"]["casebook_results"]["const"], kResultsFormat);
}

}  // namespace
}  // namespace casebook
