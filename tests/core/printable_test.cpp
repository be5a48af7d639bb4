// Text from case files, fixtures and children is made printable and bounded
// before anyone sees it (casebook/printable.h), and the ids and load errors
// the model hands out are already so.
#include "casebook/printable.h"

#include <gtest/gtest.h>

#include <string>

#include "casebook/loader.h"

namespace casebook {
namespace {

TEST(Printable, ControlCharactersBecomeVisibleEscapes) {
  EXPECT_EQ(printable_line("a\nPASS  x\x1b[2J\t\r\x7f"),
            "a\\nPASS  x\\x1b[2J\\t\\x0d\\x7f");
  EXPECT_EQ(printable_text("one\ntwo\tthree\x1b]0;title\x07"),
            "one\ntwo\tthree\\x1b]0;title\\x07");
}

TEST(Printable, OrdinaryTextAndUtf8AreKeptByteForByte) {
  const std::string text = "cases/été/naïve_ß → 🙂 C:\\path 'q' \"d\"";
  EXPECT_EQ(printable_line(text), text);
  EXPECT_EQ(printable_text(text), text);
}

TEST(Printable, BytesThatAreNotUtf8AreEscapedOneByOne) {
  EXPECT_EQ(printable_line("bad\xff\xfe"), "bad\\xff\\xfe");
  EXPECT_EQ(printable_line("\xc3"), "\\xc3");                    // truncated
  EXPECT_EQ(printable_line("\xc0\xaf"), "\\xc0\\xaf");           // overlong '/'
  EXPECT_EQ(printable_line("\xed\xa0\x80"), "\\xed\\xa0\\x80");  // surrogate
  EXPECT_EQ(printable_line("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");
  // C1 controls (U+009B is a terminal's CSI) are escapes too.
  EXPECT_EQ(printable_line("\xc2\x9b"
                           "2J"),
            "\\xc2\\x9b2J");
  EXPECT_EQ(printable_line("\xc2\xa0"), "\xc2\xa0");  // no-break space stays
}

// Issue 49: U+2028 and U+2029 in an id or a message printed raw, and
// Python's line reading (splitlines) broke the line there; a bidirectional
// control reorders what a terminal shows.
TEST(Printable, UnicodeLineSeparatorsAndBidiControlsAreEscaped) {
  EXPECT_EQ(printable_line("a\u2028PASS\u2029b"), "a\\u2028PASS\\u2029b");
  EXPECT_EQ(printable_text("one\ntwo\u2028three"), "one\ntwo\\u2028three");
  EXPECT_EQ(printable_line("x\u202eevil\u202c\u2066\u2069\u200f\u061c"),
            "x\\u202eevil\\u202c\\u2066\\u2069\\u200f\\u061c");
  // Their neighbours are text: an en dash, a bullet, an ellipsis, Arabic.
  const std::string kept = "\u2013 \u2022 \u2026 \u0627\u061b \u2070";
  EXPECT_EQ(printable_line(kept), kept);
  EXPECT_EQ(derive_case_id("cases/a\u2028b.yaml", {}), "a\\u2028b");
  // A case file's text holds none, as it holds no control character.
  const LoadedCase loaded = load_case_text(
      "casebook: 1\nsummary: one\u2028two\nop: torch.neg\n", "cases/s.yaml");
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.errors.front().to_string(),
            "cases/s.yaml:2:10: a control character in `one\\u2028two`: a "
            "case file's text is printable (a newline or a tab aside)");
}

TEST(Printable, BoundedTextCutsAtACharacterAndCountsTheRest) {
  EXPECT_EQ(bounded_text("short", 10), "short");
  EXPECT_EQ(bounded_text("abcdefghij", 4), "abcd ... (6 more bytes)");
  // "é" is two bytes: a cut inside it backs off to before it.
  EXPECT_EQ(bounded_text("abé", 3), "ab ... (2 more bytes)");
  const std::string huge(50 * 1024 * 1024, 'A');
  EXPECT_LE(bounded_text(huge, kMessageBytes).size(), kMessageBytes + 32);
}

TEST(Printable, CaseIdsFromHostileFileNamesCannotForgeALine) {
  const std::string id =
      derive_case_id("cases/x/evil\nPASS    fake  cpu\x1b[2J.yaml", {});
  EXPECT_EQ(id, "x/evil\\nPASS    fake  cpu\\x1b[2J");
  EXPECT_EQ(derive_case_id("cases/bad\xff.yaml", {}), "bad\\xff");
}

TEST(Printable, LoadErrorsAreBoundedAndPrintable) {
  const std::string name = "cases/a\x1b[31m.yaml";
  const LoadedCase loaded = load_case_text(
      "casebook: 1\nsummary: s\nop: " + std::string(100000, 'x') + "\x1b\n",
      name);
  ASSERT_FALSE(loaded.ok());
  const std::string shown = loaded.errors.front().to_string();
  EXPECT_EQ(shown.find('\x1b'), std::string::npos) << shown;
  EXPECT_EQ(shown.rfind("cases/a\\x1b[31m.yaml:", 0), 0u) << shown;
  EXPECT_LE(shown.size(), kMessageBytes + 32);
}

}  // namespace
}  // namespace casebook
