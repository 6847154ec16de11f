//===- JsonSyntax.cpp - Where a JSON text stops being JSON ----------------===//
//
// Part of the spperm project.
//
//===----------------------------------------------------------------------===//

#include "spperm/Sparse/JsonSyntax.h"

#include <nlohmann/json.hpp>

using namespace spperm;

namespace {

using json = nlohmann::json;

/// A SAX handler that accepts every value and keeps the parser's message:
/// nlohmann::json says where parsing failed only through an exception or a
/// SAX handler, and the core is built without exceptions.
class ErrorRecorder : public nlohmann::json_sax<json> {
public:
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t &) override { return true; }
  bool string(string_t &) override { return true; }
  bool binary(binary_t &) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t &) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t, const std::string &,
                   const nlohmann::detail::exception &ex) override {
    message = ex.what();
    return false;
  }

  std::string message;
};

} // namespace

std::string spperm::jsonSyntaxError(const std::string &text) {
  ErrorRecorder recorder;
  if (json::sax_parse(text, &recorder))
    return "";
  // "[json.exception.parse_error.101] parse error at line 3, column 7: ..."
  // becomes "line 3, column 7: ...".
  std::string message = recorder.message;
  const std::string marker = "parse error at ";
  if (size_t at = message.find(marker); at != std::string::npos)
    message = message.substr(at + marker.size());
  // "...; last read: 'TOKEN'": a token may be a whole long string.
  const std::string lastRead = "last read: '";
  if (size_t at = message.find(lastRead); at != std::string::npos) {
    const size_t begin = at + lastRead.size();
    const size_t end = message.find('\'', begin);
    constexpr size_t kMaxToken = 40;
    if (end != std::string::npos && end - begin > kMaxToken)
      message.replace(begin + kMaxToken, end - begin - kMaxToken, "...");
  }
  for (char &c : message)
    if (static_cast<unsigned char>(c) < 0x20 ||
        static_cast<unsigned char>(c) >= 0x7f)
      c = '?';
  return message.empty() ? "not one JSON value" : message;
}
