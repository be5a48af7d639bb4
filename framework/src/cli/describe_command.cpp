// `casebook describe [--json]`: casebook's vocabulary, from the rows that
// define it (casebook/verdict_list.h, casebook/family_list.h, the backend
// list and diagnosis/advice.cpp): the verdicts, whether each keeps the exit
// status 0, the error families with their meaning and first check, and the
// backends with the facts their devices report. What a program asks instead
// of copying the lists.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "casebook/backend.h"
#include "casebook/diagnosis.h"
#include "casebook/family.h"
#include "casebook/verdict.h"
#include "casebook_build_config.h"
#include "cli/command_line.h"

namespace casebook {
namespace {

using Json = nlohmann::ordered_json;

Json vocabulary() {
  Json verdicts = Json::array();
  for (Verdict verdict : all_verdicts()) {
    verdicts.push_back({{"name", std::string(verdict_name(verdict))},
                        {"success", verdict_is_success(verdict)}});
  }
  Json families = Json::array();
  for (Family family : all_families()) {
    const FamilyAdvice& advice = advice_for(family);
    families.push_back({{"name", std::string(family_name(family))},
                        {"meaning", advice.meaning},
                        {"first_check", advice.first_check}});
  }
  Json backends = Json::array();
  for (Backend backend : all_backends()) {
    Json facts = Json::array();
    for (const DeviceFactName& fact : device_fact_names(backend)) {
      facts.push_back({{"name", fact.name}, {"version_of", fact.version_of}});
    }
    const auto& built_in = built_in_backends();
    backends.push_back({{"name", std::string(backend_name(backend))},
                        {"gpu", is_gpu(backend)},
                        {"built_in", std::find(built_in.begin(), built_in.end(),
                                               backend) != built_in.end()},
                        {"device_facts", std::move(facts)}});
  }
  return {{"casebook_vocabulary", 1},
          {"casebook", CASEBOOK_VERSION},
          {"verdicts", std::move(verdicts)},
          {"families", std::move(families)},
          {"backends", std::move(backends)}};
}

void print_text(const Json& words) {
  std::cout << "verdicts:";
  for (const Json& verdict : words["verdicts"]) {
    std::cout << " " << verdict["name"].get<std::string>()
              << (verdict["success"].get<bool>() ? "" : "*");
  }
  std::cout << "\n  * makes the exit status 1\nfamilies:";
  for (const Json& family : words["families"]) {
    std::cout << " " << family["name"].get<std::string>();
  }
  std::cout << "\n  casebook explain FAMILY says what one means\nbackends:";
  for (const Json& backend : words["backends"]) {
    std::cout << " " << backend["name"].get<std::string>();
    for (const Json& fact : backend["device_facts"]) {
      std::cout << " (" << fact["name"].get<std::string>() << ")";
    }
  }
  std::cout << "\n";
}

}  // namespace

Command add_describe(CLI::App& app) {
  auto as_json = std::make_shared<bool>(false);
  CLI::App* describe = app.add_subcommand(
      "describe",
      "casebook's vocabulary: the verdicts, the error families (with their "
      "meaning and first check, as JSON) and the backends with the facts "
      "their devices report");
  describe->add_flag("--json", *as_json,
                     "as one JSON document (casebook_vocabulary: 1)");
  return {describe, [as_json] {
            const Json words = vocabulary();
            if (*as_json) {
              std::cout << words.dump(1) << "\n";
            } else {
              print_text(words);
            }
            return 0;
          }};
}

}  // namespace casebook
