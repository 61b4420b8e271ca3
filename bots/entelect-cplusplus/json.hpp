// A small JSON reader, enough for state.json (standard library only).
#pragma once

#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace json {

struct Value {
    enum Kind { Null, Bool, Number, String, Array, Object } kind = Null;
    bool b = false;
    double n = 0;
    std::string s;
    std::vector<Value> items;
    std::map<std::string, Value> fields;

    const Value& operator[](const std::string& key) const {
        auto it = fields.find(key);
        if (it == fields.end()) throw std::runtime_error("state.json: no field " + key);
        return it->second;
    }
    int asInt() const { return static_cast<int>(n); }
};

class Parser {
public:
    explicit Parser(const std::string& text) : s_(text) {}

    Value parse() {
        Value v = value();
        skip();
        if (pos_ != s_.size()) fail("unexpected text after the value");
        return v;
    }

private:
    const std::string& s_;
    size_t pos_ = 0;

    [[noreturn]] void fail(const std::string& what) {
        throw std::runtime_error("state.json: " + what + " at offset " + std::to_string(pos_));
    }
    void skip() {
        while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) pos_++;
    }
    char next() {
        if (pos_ >= s_.size()) fail("unexpected end");
        return s_[pos_++];
    }
    void expect(char c) {
        skip();
        if (next() != c) fail(std::string("expected '") + c + "'");
    }
    Value value() {
        skip();
        if (pos_ >= s_.size()) fail("unexpected end");
        Value v;
        char c = s_[pos_];
        if (c == '{') {
            v.kind = Value::Object;
            pos_++;
            skip();
            if (s_[pos_] == '}') { pos_++; return v; }
            for (;;) {
                skip();
                std::string key = str();
                expect(':');
                v.fields[key] = value();
                skip();
                char d = next();
                if (d == '}') return v;
                if (d != ',') fail("expected ',' or '}'");
            }
        }
        if (c == '[') {
            v.kind = Value::Array;
            pos_++;
            skip();
            if (s_[pos_] == ']') { pos_++; return v; }
            for (;;) {
                v.items.push_back(value());
                skip();
                char d = next();
                if (d == ']') return v;
                if (d != ',') fail("expected ',' or ']'");
            }
        }
        if (c == '"') { v.kind = Value::String; v.s = str(); return v; }
        if (s_.compare(pos_, 4, "true") == 0) { pos_ += 4; v.kind = Value::Bool; v.b = true; return v; }
        if (s_.compare(pos_, 5, "false") == 0) { pos_ += 5; v.kind = Value::Bool; return v; }
        if (s_.compare(pos_, 4, "null") == 0) { pos_ += 4; return v; }
        size_t start = pos_;
        while (pos_ < s_.size() && std::string("+-0123456789.eE").find(s_[pos_]) != std::string::npos) pos_++;
        if (start == pos_) fail("unexpected character");
        v.kind = Value::Number;
        v.n = std::stod(s_.substr(start, pos_ - start));
        return v;
    }
    std::string str() {
        if (next() != '"') fail("expected a string");
        std::string out;
        for (;;) {
            char c = next();
            if (c == '"') return out;
            if (c != '\\') { out += c; continue; }
            char e = next();
            switch (e) {
                case 'n': out += '\n'; break;
                case 't': out += '\t'; break;
                case 'r': out += '\r'; break;
                case 'u': pos_ += 4; out += '?'; break;  // names only; not needed here
                default: out += e;
            }
        }
    }
};

inline Value parse(const std::string& text) { return Parser(text).parse(); }

}  // namespace json
