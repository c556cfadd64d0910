//! Cost-model files: a fitted (or any polynomial) cost model as a small,
//! versioned JSON file that every binding and the CLI read. The format is
//! specified in docs/cost-models.md ("Cost-model files"). Parsed with
//! serde_json into a `Value` and checked field by field (no derive macros:
//! the crate needs only serde_json, which Debian packages); written with
//! serde_json's number and string formatting, whose doubles read back to
//! the same bits.

use crate::cost::CostModel;
use crate::error::{Error, Result, Status};
use crate::quality::{PolynomialCoefficients, PredictionQuality};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// The "format" of a cost-model file.
pub const COST_MODEL_FILE_FORMAT: &str = "flopspack-cost-model";
/// The version this crate reads and writes.
pub const COST_MODEL_FILE_VERSION: i64 = 1;

const COEFFICIENTS: [&str; 4] = ["per_sequence", "per_document", "linear", "quadratic"];
const QUALITY_FIELDS: [&str; 8] = [
    "scale",
    "offset",
    "r_squared",
    "rms_residual",
    "mean_relative_error",
    "median_relative_error",
    "max_relative_error",
    "num_samples",
];

/// One row of a prediction-quality table: how well `model` ("fitted",
/// "flops", "tokens", ...) predicted the training samples and the held-out
/// ones (`None` when nothing was held out).
#[derive(Debug, Clone, PartialEq)]
pub struct ModelQuality {
    pub model: String,
    pub train: PredictionQuality,
    pub held_out: Option<PredictionQuality>,
}

/// The content of a cost-model file (version 1).
#[derive(Debug, Clone, PartialEq)]
pub struct CostModelFile {
    pub coefficients: PolynomialCoefficients,
    /// What a cost counts; "seconds" for a calibration.
    pub unit: String,
    /// "document": each document costs on its own (the only value of version 1).
    pub attention: String,
    /// Where the numbers come from, for people.
    pub provenance: BTreeMap<String, String>,
    pub quality: Vec<ModelQuality>,
}

fn fail(message: String) -> Error {
    Error::new(
        Status::InvalidArgument,
        format!("cost model file: {message}"),
    )
}

fn number(value: Option<&Value>, name: &str, non_negative: bool) -> Result<f64> {
    let value = value.ok_or_else(|| fail(format!("{name} is missing")))?;
    let x = value
        .as_f64()
        .ok_or_else(|| fail(format!("{name} = {value}: must be a number")))?;
    if !x.is_finite() || (non_negative && x < 0.0) {
        let bound = if non_negative { " >= 0" } else { "" };
        return Err(fail(format!(
            "{name} = {value}: must be a finite number{bound}"
        )));
    }
    Ok(x)
}

fn quality(value: Option<&Value>, name: &str) -> Result<PredictionQuality> {
    let object = value
        .and_then(Value::as_object)
        .ok_or_else(|| fail(format!("{name} is missing or not an object")))?;
    let f = |field: &str| number(object.get(field), &format!("{name}.{field}"), false);
    let num_samples = object
        .get("num_samples")
        .and_then(Value::as_u64)
        .ok_or_else(|| fail(format!("{name}.num_samples must be an integer >= 0")))?;
    Ok(PredictionQuality {
        scale: f("scale")?,
        offset: f("offset")?,
        r_squared: f("r_squared")?,
        rms_residual: f("rms_residual")?,
        mean_relative_error: f("mean_relative_error")?,
        median_relative_error: f("median_relative_error")?,
        max_relative_error: f("max_relative_error")?,
        num_samples,
    })
}

fn shown(value: Option<&Value>) -> String {
    value.map_or_else(|| "missing".to_owned(), Value::to_string)
}

impl CostModelFile {
    /// Describes a tokens, polynomial or fitted model; set `provenance` and
    /// `quality`, then [`CostModelFile::write`].
    pub fn new(model: &CostModel) -> Result<CostModelFile> {
        Ok(CostModelFile {
            coefficients: model.coefficients()?,
            unit: "seconds".to_owned(),
            attention: "document".to_owned(),
            provenance: BTreeMap::new(),
            quality: Vec::new(),
        })
    }

    /// The cost model the file describes.
    pub fn model(&self) -> Result<CostModel> {
        let c = &self.coefficients;
        CostModel::polynomial(c.per_sequence, c.per_document, c.linear, c.quadratic)
    }

    /// Reads and checks a file's text; unknown keys are ignored (a later
    /// revision of version 1 may add some).
    pub fn parse(text: &str) -> Result<CostModelFile> {
        let top: Value =
            serde_json::from_str(text).map_err(|e| fail(format!("not valid JSON: {e}")))?;
        let top = top
            .as_object()
            .ok_or_else(|| fail("the top level is not a JSON object".to_owned()))?;
        if top.get("format").and_then(Value::as_str) != Some(COST_MODEL_FILE_FORMAT) {
            return Err(fail(format!(
                "\"format\" is {}, not \"{COST_MODEL_FILE_FORMAT}\"",
                shown(top.get("format"))
            )));
        }
        let version = top.get("version").and_then(Value::as_i64).ok_or_else(|| {
            fail(format!(
                "\"version\" is {}, not an integer",
                shown(top.get("version"))
            ))
        })?;
        if version != COST_MODEL_FILE_VERSION {
            return Err(fail(format!(
                "version {version} is not supported (this library reads version \
                 {COST_MODEL_FILE_VERSION})"
            )));
        }
        if top.get("kind").and_then(Value::as_str) != Some("polynomial") {
            return Err(fail(format!(
                "kind {} is not supported (version 1 holds \"polynomial\" models)",
                shown(top.get("kind"))
            )));
        }
        if top.get("attention").and_then(Value::as_str) != Some("document") {
            return Err(fail(format!(
                "attention {} is not supported (version 1 models cost each document on its \
                 own: \"document\")",
                shown(top.get("attention"))
            )));
        }
        let c = top
            .get("coefficients")
            .and_then(Value::as_object)
            .ok_or_else(|| fail("\"coefficients\" is missing or not an object".to_owned()))?;
        let mut values = [0.0; 4];
        for (value, name) in values.iter_mut().zip(COEFFICIENTS) {
            *value = number(c.get(name), &format!("coefficients.{name}"), true)?;
        }
        let unit = match top.get("unit") {
            None => "seconds".to_owned(),
            Some(Value::String(s)) => s.clone(),
            Some(other) => return Err(fail(format!("\"unit\" is {other}, not a string"))),
        };
        let mut provenance = BTreeMap::new();
        if let Some(p) = top.get("provenance") {
            let bad = || fail("\"provenance\" must be an object of strings".to_owned());
            for (key, value) in p.as_object().ok_or_else(bad)? {
                provenance.insert(key.clone(), value.as_str().ok_or_else(bad)?.to_owned());
            }
        }
        let mut rows = Vec::new();
        if let Some(q) = top.get("quality") {
            let q = q
                .as_array()
                .ok_or_else(|| fail("\"quality\" must be an array".to_owned()))?;
            for (i, row) in q.iter().enumerate() {
                let name = format!("quality[{i}]");
                let model = row
                    .get("model")
                    .and_then(Value::as_str)
                    .ok_or_else(|| fail(format!("{name}.model must be a string")))?;
                let held_out = match row.get("held_out") {
                    None | Some(Value::Null) => None,
                    some => Some(quality(some, &format!("{name}.held_out"))?),
                };
                rows.push(ModelQuality {
                    model: model.to_owned(),
                    train: quality(row.get("train"), &format!("{name}.train"))?,
                    held_out,
                });
            }
        }
        Ok(CostModelFile {
            coefficients: PolynomialCoefficients {
                per_sequence: values[0],
                per_document: values[1],
                linear: values[2],
                quadratic: values[3],
            },
            unit,
            attention: "document".to_owned(),
            provenance,
            quality: rows,
        })
    }

    /// The file's text: indented JSON, keys in the documented order.
    pub fn to_json_string(&self) -> String {
        fn num(x: f64) -> String {
            serde_json::to_string(&x).unwrap_or_else(|_| "null".to_owned())
        }
        fn text(s: &str) -> String {
            Value::String(s.to_owned()).to_string()
        }
        fn quality(q: &PredictionQuality) -> String {
            let values = [
                num(q.scale),
                num(q.offset),
                num(q.r_squared),
                num(q.rms_residual),
                num(q.mean_relative_error),
                num(q.median_relative_error),
                num(q.max_relative_error),
                q.num_samples.to_string(),
            ];
            let fields: Vec<String> = QUALITY_FIELDS
                .iter()
                .zip(values)
                .map(|(k, v)| format!("\"{k}\": {v}"))
                .collect();
            format!("{{{}}}", fields.join(", "))
        }
        let c = &self.coefficients;
        let mut out = format!(
            "{{\n  \"format\": \"{COST_MODEL_FILE_FORMAT}\",\n  \"version\": \
             {COST_MODEL_FILE_VERSION},\n  \"kind\": \"polynomial\",\n  \"attention\": {},\n  \
             \"unit\": {},\n  \"coefficients\": {{\n    \"per_sequence\": {},\n    \
             \"per_document\": {},\n    \"linear\": {},\n    \"quadratic\": {}\n  }}",
            text(&self.attention),
            text(&self.unit),
            num(c.per_sequence),
            num(c.per_document),
            num(c.linear),
            num(c.quadratic)
        );
        if !self.provenance.is_empty() {
            let entries: Vec<String> = self
                .provenance
                .iter()
                .map(|(k, v)| format!("    {}: {}", text(k), text(v)))
                .collect();
            out += &format!(",\n  \"provenance\": {{\n{}\n  }}", entries.join(",\n"));
        }
        if !self.quality.is_empty() {
            let rows: Vec<String> = self
                .quality
                .iter()
                .map(|r| {
                    let mut row = format!(
                        "    {{\"model\": {}, \"train\": {}",
                        text(&r.model),
                        quality(&r.train)
                    );
                    if let Some(h) = &r.held_out {
                        row += &format!(", \"held_out\": {}", quality(h));
                    }
                    row + "}"
                })
                .collect();
            out += &format!(",\n  \"quality\": [\n{}\n  ]", rows.join(",\n"));
        }
        out + "\n}\n"
    }

    /// Reads and checks the file at `path`.
    pub fn read(path: impl AsRef<Path>) -> Result<CostModelFile> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|e| {
            Error::new(
                Status::InvalidArgument,
                format!("cannot read {}: {e}", path.display()),
            )
        })?;
        CostModelFile::parse(&text)
            .map_err(|e| Error::new(e.status(), format!("{}: {}", path.display(), e.message())))
    }

    /// Writes the file atomically (a temporary file renamed over `path`).
    pub fn write(&self, path: impl AsRef<Path>) -> Result<()> {
        let path = path.as_ref();
        let mut tmp = path.as_os_str().to_owned();
        tmp.push(format!(".tmp{}", std::process::id()));
        let io = |e: std::io::Error| {
            Error::new(
                Status::InvalidArgument,
                format!("cannot write {}: {e}", path.display()),
            )
        };
        std::fs::write(&tmp, self.to_json_string()).map_err(io)?;
        std::fs::rename(&tmp, path).map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            io(e)
        })
    }
}

impl CostModel {
    /// The cost model of the cost-model file at `path`.
    pub fn load(path: impl AsRef<Path>) -> Result<CostModel> {
        CostModelFile::read(path)?.model()
    }

    /// Writes this tokens, polynomial or fitted model to a cost-model file
    /// (no provenance or quality: use [`CostModelFile`] for those).
    pub fn save(&self, path: impl AsRef<Path>) -> Result<()> {
        CostModelFile::new(self)?.write(path)
    }
}
