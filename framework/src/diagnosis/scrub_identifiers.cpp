// Personal identifiers by their format, each checked the way its issuer
// checks it, so that the numbers a report is full of (shapes, seeds,
// timestamps, versions, sizes) stay: payment card numbers (issuer prefix,
// length and the Luhn digit), IBANs (country, length, mod 97), US social
// security numbers (no 000, 666 or 9xx area, no 00 group, no 0000 serial)
// and phone numbers (an international "+..." number, a North American one
// in its written shapes, or digits after a word that says phone). A shape
// that is ambiguous alone (an ungrouped card number, nine bare digits) needs
// its word before it on the line. One table, one place: each row a pattern
// (group 2 the identifier), a check and its marker.
#include <re2/re2.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "diagnosis/scrub_internal.h"
#include "diagnosis/scrub_match.h"

namespace casebook {
namespace {

using scrub_match::Groups;
using scrub_match::replace_groups;
using scrub_match::str;

std::string digits_of(std::string_view text) {
  std::string digits;
  for (char c : text) {
    if (c >= '0' && c <= '9') digits += c;
  }
  return digits;
}

// Whether `words` (a pattern of whole words) match in the 40 characters
// before `at` on its line.
bool said_before(std::string_view text, size_t at, const RE2& words) {
  const size_t line = text.rfind('\n', at == 0 ? 0 : at - 1);
  const size_t from = std::max(line == std::string_view::npos ? 0 : line + 1,
                               at >= 40 ? at - 40 : size_t{0});
  return from < at && RE2::PartialMatch(text.substr(from, at - from), words);
}

bool luhn_valid(const std::string& digits) {
  int sum = 0;
  for (size_t i = 0; i < digits.size(); ++i) {
    int d = digits[digits.size() - 1 - i] - '0';
    if (i % 2 == 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return sum % 10 == 0;
}

// Visa, Mastercard, American Express, Discover, JCB, Diners, UnionPay by
// their prefix and length.
bool is_card(std::string_view text, std::string_view token, size_t at) {
  static const RE2 kSaid(
      R"((?i)\b(?:card|visa|mastercard|amex|credit|debit|cc)\b)");
  static const RE2 kIssuer(
      R"(4(?:\d{12}|\d{15}|\d{18})|(?:5[1-5]|2[2-7])\d{14}|3[47]\d{13}|(?:6011|65\d\d|64[4-9]\d)\d{12,15}|35\d{14,17}|3(?:0[0-5]|[68]\d)\d{11,16}|62\d{14,17})");
  const std::string digits = digits_of(token);
  const bool grouped = digits.size() != token.size();
  return RE2::FullMatch(digits, kIssuer) && luhn_valid(digits) &&
         (grouped || said_before(text, at, kSaid));
}

// ISO 13616: the length of each country's IBAN, then mod 97 of the number
// with its first four characters moved to the end, letters as 10..35.
bool is_iban(std::string_view, std::string_view token, size_t) {
  static const std::string_view kLengths =
      "AD24AE23AL28AT20AZ28BA20BE16BG22BH22BR29CH21CR22CY28CZ24DE22DK18DO28"
      "EE20EG29ES24FI18FO18FR27GB22GE22GI23GL18GR27GT28HR21HU28IE22IL23IS26"
      "IT27JO30KW30KZ20LB28LI21LT20LU20LV21MC27MD24ME22MK19MR27MT31MU30NL18"
      "NO15PK24PL28PS29PT25QA29RO24RS22SA24SE24SI19SK24SM27TN24TR26UA29VG24";
  std::string iban;
  for (char c : token) {
    if (c != ' ') iban += c;
  }
  size_t entry = 0;
  while (entry < kLengths.size() &&
         kLengths.substr(entry, 2) != iban.substr(0, 2)) {
    entry += 4;
  }
  if (entry >= kLengths.size() ||
      std::stoul(std::string(kLengths.substr(entry + 2, 2))) != iban.size()) {
    return false;
  }
  int rest = 0;
  for (char c : iban.substr(4) + iban.substr(0, 4)) {
    const int value = c <= '9' ? c - '0' : c - 'A' + 10;
    rest = (rest * (value > 9 ? 100 : 10) + value) % 97;
  }
  return rest == 1;
}

bool is_ssn(std::string_view text, std::string_view token, size_t at) {
  static const RE2 kSaid(R"((?i)\b(?:ssn|social security)\b)");
  const std::string d = digits_of(token);
  const bool valid = d.compare(0, 3, "000") != 0 &&
                     d.compare(0, 3, "666") != 0 && d[0] != '9' &&
                     d.compare(3, 2, "00") != 0 && d.compare(5, 4, "0000") != 0;
  return valid && (d.size() != token.size() || said_before(text, at, kSaid));
}

bool is_phone(std::string_view text, std::string_view token, size_t at) {
  static const RE2 kSaid(
      R"((?i)\b(?:phone|tel|mobile|cell|fax|sms|whatsapp)\b)");
  const size_t digits = digits_of(token).size();
  if (token.front() == '+') return digits >= 8 && digits <= 15;
  return digits >= 7 && digits <= 15 && said_before(text, at, kSaid);
}

struct Identifier {
  const char* kind;
  const char* marker;
  // Group 1 the character before, group 2 the identifier, group 3 the
  // character after (not replaced).
  const char* pattern;
  bool (*check)(std::string_view text, std::string_view token, size_t at);
};

const Identifier kIdentifiers[] = {
    {"IBAN", "<iban>",
     R"((^|[^A-Za-z0-9])([A-Z]{2}[0-9]{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?)($|[^A-Za-z0-9]))",
     is_iban},
    // 4-4-4-4(-3), Amex's 4-6-5, or the digits alone; not one of more
    // numbers ("[4096 2048 1024 5120]").
    {"card number", "<card>",
     R"((^|[^0-9A-Za-z_.+\[ -]|[^0-9] )([0-9]{4}(?: [0-9]{4}){3}(?: [0-9]{1,3})?|[0-9]{4}(?:-[0-9]{4}){3}(?:-[0-9]{1,3})?|3[47][0-9]{2}[ -][0-9]{6}[ -][0-9]{5}|[0-9]{13,19})($|[^0-9A-Za-z_ -]| [^0-9]))",
     is_card},
    {"social security number", "<ssn>",
     R"((^|[^0-9A-Za-z_.+-])([0-9]{3}-[0-9]{2}-[0-9]{4}|[0-9]{9})($|[^0-9A-Za-z_-]))",
     is_ssn},
    // +1 (415) 555-0132, +44 20 7946 0958, tel:+14155550132 (not +1234.5678).
    {"phone number", "<phone>",
     R"((^|[^0-9A-Za-z_.+-])(\+[1-9][0-9]{0,2}(?:[ -]?\(?[0-9]{1,4}\)?)(?:[ -]?[0-9]{2,5}){1,4})($|[^0-9A-Za-z_]))",
     is_phone},
    // (415) 555-0132, 415-555-0132, 415.555.0132 (one separator).
    {"phone number", "<phone>",
     R"((^|[^0-9A-Za-z_.+(-])(\([2-9][0-9]{2}\) ?[2-9][0-9]{2}-[0-9]{4}|[2-9][0-9]{2}-[2-9][0-9]{2}-[0-9]{4}|[2-9][0-9]{2}\.[2-9][0-9]{2}\.[0-9]{4})($|[^0-9A-Za-z_.-]|\.[^0-9]|\.$))",
     nullptr},
    // After a word that says phone: 030 1234567, (0)30-123 45 67.
    {"phone number", "<phone>",
     R"((^|[^0-9A-Za-z_.+-])(\(?[0-9][0-9() /.-]{5,}[0-9])($|[^0-9A-Za-z_]))",
     is_phone},
};

}  // namespace

void replace_identifiers(std::string& text, const ScrubContext& ctx) {
  static const std::vector<std::unique_ptr<RE2>> kCompiled = [] {
    std::vector<const char*> patterns;
    for (const Identifier& identifier : kIdentifiers) {
      patterns.push_back(identifier.pattern);
    }
    return scrub_match::compile_all(patterns.data(), patterns.size());
  }();
  for (size_t i = 0; i < kCompiled.size(); ++i) {
    const Identifier& identifier = kIdentifiers[i];
    replace_groups(text, *kCompiled[i], 2, 2, [&](const Groups& groups) {
      const std::string token = str(groups[2]);
      const size_t at = groups[2].data() - text.data();
      if (identifier.check != nullptr && !identifier.check(text, token, at)) {
        return std::optional<std::string>();
      }
      log_replacement(ctx, identifier.kind, "(value not shown)");
      return std::optional<std::string>(identifier.marker);
    });
  }
}

}  // namespace casebook
