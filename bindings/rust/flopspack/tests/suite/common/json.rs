//! A minimal JSON reader for the golden vectors (no external crates).
//! Integers keep their exact value; other numbers go through `str::parse`,
//! which rounds correctly, so 17-significant-digit doubles round-trip.
use std::collections::BTreeMap;

#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    Array(Vec<Json>),
    Object(BTreeMap<String, Json>),
}

impl Json {
    pub fn parse(text: &str) -> Json {
        let mut p = Parser {
            s: text.as_bytes(),
            i: 0,
        };
        let v = p.value();
        p.skip();
        assert_eq!(p.i, p.s.len(), "trailing characters");
        v
    }
    pub fn get(&self, key: &str) -> &Json {
        match self {
            Json::Object(m) => m.get(key).unwrap_or_else(|| panic!("missing key {key}")),
            _ => panic!("not an object looking for {key}"),
        }
    }
    pub fn opt(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(m) => m.get(key),
            _ => None,
        }
    }
    pub fn int(&self) -> i64 {
        match self {
            Json::Int(i) => *i,
            other => panic!("not an integer: {other:?}"),
        }
    }
    pub fn float(&self) -> f64 {
        match self {
            Json::Int(i) => *i as f64,
            Json::Float(f) => *f,
            other => panic!("not a number: {other:?}"),
        }
    }
    pub fn str(&self) -> &str {
        match self {
            Json::Str(s) => s,
            other => panic!("not a string: {other:?}"),
        }
    }
    pub fn array(&self) -> &[Json] {
        match self {
            Json::Array(a) => a,
            other => panic!("not an array: {other:?}"),
        }
    }
    pub fn object(&self) -> &BTreeMap<String, Json> {
        match self {
            Json::Object(m) => m,
            other => panic!("not an object: {other:?}"),
        }
    }
    pub fn ints(&self) -> Vec<i64> {
        self.array().iter().map(Json::int).collect()
    }
    pub fn floats(&self) -> Vec<f64> {
        self.array().iter().map(Json::float).collect()
    }
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn skip(&mut self) {
        while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }
    fn eat(&mut self, c: u8) {
        self.skip();
        assert_eq!(
            self.s.get(self.i),
            Some(&c),
            "expected {} at {}",
            c as char,
            self.i
        );
        self.i += 1;
    }
    fn string(&mut self) -> String {
        self.eat(b'"');
        let mut out = Vec::new();
        while self.s[self.i] != b'"' {
            if self.s[self.i] == b'\\' {
                self.i += 1;
            }
            out.push(self.s[self.i]);
            self.i += 1;
        }
        self.i += 1;
        String::from_utf8(out).expect("utf-8")
    }
    fn value(&mut self) -> Json {
        self.skip();
        match self.s[self.i] {
            b'{' => {
                self.i += 1;
                let mut m = BTreeMap::new();
                self.skip();
                if self.s[self.i] == b'}' {
                    self.i += 1;
                    return Json::Object(m);
                }
                loop {
                    let k = self.string();
                    self.eat(b':');
                    m.insert(k, self.value());
                    self.skip();
                    if self.s[self.i] == b',' {
                        self.i += 1;
                        continue;
                    }
                    self.eat(b'}');
                    return Json::Object(m);
                }
            }
            b'[' => {
                self.i += 1;
                let mut a = Vec::new();
                self.skip();
                if self.s[self.i] == b']' {
                    self.i += 1;
                    return Json::Array(a);
                }
                loop {
                    a.push(self.value());
                    self.skip();
                    if self.s[self.i] == b',' {
                        self.i += 1;
                        continue;
                    }
                    self.eat(b']');
                    return Json::Array(a);
                }
            }
            b'"' => Json::Str(self.string()),
            _ => {
                for (word, v) in [
                    ("true", Json::Bool(true)),
                    ("false", Json::Bool(false)),
                    ("null", Json::Null),
                ] {
                    if self.s[self.i..].starts_with(word.as_bytes()) {
                        self.i += word.len();
                        return v;
                    }
                }
                let start = self.i;
                while self.i < self.s.len() && b"+-0123456789.eE".contains(&self.s[self.i]) {
                    self.i += 1;
                }
                let text = std::str::from_utf8(&self.s[start..self.i]).unwrap();
                if text.contains(['.', 'e', 'E']) {
                    Json::Float(text.parse().expect("number"))
                } else {
                    Json::Int(text.parse().expect("integer"))
                }
            }
        }
    }
}
