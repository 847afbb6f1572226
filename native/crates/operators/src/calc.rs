//! Flink's `Calc` over Arrow: an optional filter, then projections, evaluated batch by batch with
//! arrow-rs kernels.
//!
//! Only expressions whose kernel matches Flink's generated code value for value are described
//! here; the planner keeps every other expression in stock Flink. What each one relies on:
//!
//! * comparisons of operands of one type (the planner casts integers to the wider type first);
//!   a NULL operand gives NULL, as in Flink. Floating-point values compare with IEEE 754's
//!   operators, as Java's primitive comparisons do (NaN is unordered and unequal, -0.0 equals
//!   0.0), not with Arrow's total order.
//! * `AND` / `OR` with SQL's three-valued logic (Kleene), `NOT`, `IS [NOT] NULL`,
//!   `IS [NOT] TRUE`, `IS [NOT] FALSE`.
//! * `CASE` (a NULL condition is not TRUE) and `COALESCE`, over values of one type.
//! * `+`, `-`, `*` on integers wrap on overflow, as Java's operators do; on floating point they are
//!   IEEE 754 in both. `/` and `MOD` on integers truncate as Java's `/` and `%` (`MIN / -1` wraps);
//!   `/` on DECIMALs rounds as Flink's `DecimalDataUtils`; on floating point it is IEEE 754.
//! * `CAST` that widens an integer, or turns one into a floating-point number (rounded to nearest
//!   in both), on arrow-rs's kernel; the casts that change values (and text parsed as an integer,
//!   a BOOLEAN, a DOUBLE or a DECIMAL) as Flink casts them, in the crate's `cast` module.
//! * the filter keeps the rows where the condition is TRUE (not NULL), as Flink's `Calc` does.
//!
//! Integer and DECIMAL division by zero, and text that does not parse as the number or BOOLEAN a
//! CAST asks for, fail with Flink's exception and message ([`CalcError::Arithmetic`],
//! [`CalcError::NumberFormat`], [`CalcError::Table`], [`CalcError::IndexOutOfBounds`]). So that
//! they fail on exactly the rows Flink's code fails on, an expression that can fail is evaluated
//! only on the rows Flink evaluates it for: projections on the rows the filter keeps, a `CASE`
//! branch (and each later condition) on the rows that reach it, the right side of `AND` where the
//! left is not FALSE and of `OR` where it is not TRUE. Every other operator evaluates all of its
//! arguments on every row, as Flink's code does (`COALESCE` included).

use std::collections::HashMap;
use std::sync::Arc;

use arrow::array::{
    Array, ArrayRef, BooleanArray, Datum, Decimal128Array, Float32Array, Float64Array, Int8Array,
    Int16Array, Int32Array, Int64Array, RecordBatch, Scalar, StringArray, UInt32Array,
    new_empty_array, new_null_array,
};
use arrow::compute::kernels::zip::zip;
use arrow::compute::kernels::{cmp, numeric};
use arrow::compute::{
    CastOptions, and_kleene, cast_with_options, filter_record_batch, is_not_null, is_null, not,
    or_kleene, prep_null_mask_filter, take,
};
use arrow::datatypes::{DataType, Field, Schema, SchemaRef, TimeUnit};
use arrow::error::ArrowError;
use serde::Deserialize;

use crate::cast;
use crate::decimal::{self, Arithmetic};
use crate::functions::{self, DatePattern, Field as TimeField, JavaRegex, LikePattern, TrimSide};

/// Why a calc cannot be built or evaluated.
#[derive(Debug, thiserror::Error)]
pub enum CalcError {
    /// The description is not one this crate evaluates; the message says what and where.
    #[error("{0}")]
    Spec(String),
    #[error(transparent)]
    Arrow(#[from] ArrowError),
    /// A row's value cannot be computed: Java's message for it (`/ by zero`, `Division by zero`,
    /// `Division undefined`), as Flink's generated code fails with an `ArithmeticException`.
    #[error("{0}")]
    Arithmetic(&'static str),
    /// Text that does not parse as the number a CAST asks for: Flink's message for it, as its
    /// generated code fails with a `NumberFormatException`.
    #[error("{0}")]
    NumberFormat(String),
    /// A value Flink's runtime refuses with a `TableException` (text that is not a BOOLEAN):
    /// Flink's message for it.
    #[error("{0}")]
    Table(String),
    /// Flink's own code indexing past an array for a row's value (text cast to a compact DECIMAL
    /// with an exponent far below its scale): Java's `ArrayIndexOutOfBoundsException` message.
    #[error("{0}")]
    IndexOutOfBounds(String),
}

type Result<T> = std::result::Result<T, CalcError>;

fn spec_error<T>(message: impl Into<String>) -> Result<T> {
    Err(CalcError::Spec(message.into()))
}

/// The SQL types of literals and casts, by Flink's names (`DECIMAL(p,s)` with its precision and
/// scale).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(try_from = "String")]
pub enum SqlType {
    Boolean,
    Tinyint,
    Smallint,
    Int,
    Bigint,
    Float,
    Double,
    String,
    Decimal(u8, i8),
    /// `TIMESTAMP(p)`: a literal's text is its epoch milliseconds.
    Timestamp(u8),
    /// `TIMESTAMP_LTZ(p)`: a literal's text is its epoch milliseconds.
    TimestampLtz(u8),
}

/// Arrow's unit for a Flink TIMESTAMP of `precision`, as the bridge maps it.
fn time_unit(precision: u8) -> arrow::datatypes::TimeUnit {
    match precision {
        0..=3 => arrow::datatypes::TimeUnit::Millisecond,
        4..=6 => arrow::datatypes::TimeUnit::Microsecond,
        _ => arrow::datatypes::TimeUnit::Nanosecond,
    }
}

impl TryFrom<String> for SqlType {
    type Error = String;

    fn try_from(name: String) -> std::result::Result<Self, String> {
        Ok(match name.as_str() {
            "BOOLEAN" => SqlType::Boolean,
            "TINYINT" => SqlType::Tinyint,
            "SMALLINT" => SqlType::Smallint,
            "INT" => SqlType::Int,
            "BIGINT" => SqlType::Bigint,
            "FLOAT" => SqlType::Float,
            "DOUBLE" => SqlType::Double,
            "STRING" => SqlType::String,
            other if other.starts_with("TIMESTAMP") => {
                let (ltz, rest) = match other.strip_prefix("TIMESTAMP_LTZ(") {
                    Some(rest) => (true, rest),
                    None => (false, other.strip_prefix("TIMESTAMP(").unwrap_or("")),
                };
                match rest.strip_suffix(')').and_then(|p| p.parse::<u8>().ok()) {
                    Some(p) if p <= 9 && ltz => SqlType::TimestampLtz(p),
                    Some(p) if p <= 9 => SqlType::Timestamp(p),
                    _ => return Err(format!("unknown type {other}")),
                }
            }
            other => {
                let decimal = other
                    .strip_prefix("DECIMAL(")
                    .and_then(|rest| rest.strip_suffix(')'))
                    .and_then(|rest| rest.split_once(','))
                    .and_then(|(p, s)| {
                        Some((p.trim().parse::<u8>().ok()?, s.trim().parse::<i8>().ok()?))
                    })
                    .filter(|(p, s)| {
                        (1..=decimal::MAX_PRECISION).contains(p) && (0..=*p as i8).contains(s)
                    });
                match decimal {
                    Some((p, s)) => SqlType::Decimal(p, s),
                    None => return Err(format!("unknown type {other}")),
                }
            }
        })
    }
}

impl SqlType {
    fn arrow(self) -> DataType {
        match self {
            SqlType::Decimal(p, s) => DataType::Decimal128(p, s),
            SqlType::Timestamp(p) => DataType::Timestamp(time_unit(p), None),
            SqlType::TimestampLtz(p) => DataType::Timestamp(time_unit(p), Some("UTC".into())),
            SqlType::Boolean => DataType::Boolean,
            SqlType::Tinyint => DataType::Int8,
            SqlType::Smallint => DataType::Int16,
            SqlType::Int => DataType::Int32,
            SqlType::Bigint => DataType::Int64,
            SqlType::Float => DataType::Float32,
            SqlType::Double => DataType::Float64,
            SqlType::String => DataType::Utf8,
        }
    }
}

/// The operators of [`Expr::Call`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Op {
    Equals,
    NotEquals,
    LessThan,
    LessThanOrEqual,
    GreaterThan,
    GreaterThanOrEqual,
    And,
    Or,
    Not,
    IsNull,
    IsNotNull,
    Plus,
    Minus,
    Times,
    /// `/`: integers truncate (and wrap) as Java's `/`, DECIMALs round as Flink's
    /// `DecimalDataUtils.divide`, floating point is IEEE 754; integer and DECIMAL division by
    /// zero fail.
    Divide,
    /// `MOD` of integers, as Java's `%`: by zero it fails.
    Mod,
    IsTrue,
    IsFalse,
    IsNotTrue,
    IsNotFalse,
    /// `CASE WHEN c1 THEN v1 ... ELSE e END`: the arguments are `c1, v1, c2, v2, ..., e`.
    Case,
    Coalesce,
    /// `EXTRACT(unit FROM ts)`: the arguments are the unit (a STRING literal) and the timestamp.
    Extract,
    /// `DATE_FORMAT(ts, pattern)`, the pattern a STRING literal.
    DateFormat,
    Lower,
    Upper,
    CharLength,
    /// `REGEXP_EXTRACT(s, regex, index)`, the regex a STRING literal and the index an INT literal.
    RegexpExtract,
    /// `SPLIT_INDEX(s, separator, index)`, the separator a STRING literal and the index an INT
    /// literal.
    SplitIndex,
    /// `SUBSTRING(s, position[, length])`, position and length INT literals.
    Substring,
    /// `s LIKE pattern [ESCAPE e]`, pattern and escape STRING literals.
    Like,
    /// `CONCAT(s1, s2, ...)` and `||`: NULL if any argument is.
    Concat,
    /// `TRIM(side characters FROM s)`: the arguments are `s`, the characters and the side
    /// (`BOTH`, `LEADING` or `TRAILING`), both STRING literals.
    Trim,
    /// `REPLACE(s, search, replacement)`, search (not empty) and replacement STRING literals.
    Replace,
    /// `ABS(x)` of a number: integers wrap (`ABS` of the smallest value is itself), as Java's
    /// `Math.abs`.
    Abs,
    /// `ts + INTERVAL` of a day-time interval: the timestamp and a BIGINT literal of milliseconds.
    AddMillis,
    /// `ts + INTERVAL` of a year-month interval: the timestamp and a BIGINT literal of months.
    AddMonths,
}

impl Op {
    /// Whether the op is one of the functions evaluated by [`function`], with constant arguments
    /// read from the description.
    fn is_function(self) -> bool {
        matches!(
            self,
            Op::Extract
                | Op::DateFormat
                | Op::Lower
                | Op::Upper
                | Op::CharLength
                | Op::RegexpExtract
                | Op::SplitIndex
                | Op::Substring
                | Op::Like
                | Op::Trim
                | Op::Replace
                | Op::AddMillis
                | Op::AddMonths
        )
    }
}

impl std::fmt::Display for Op {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Op::Equals => "=",
            Op::NotEquals => "<>",
            Op::LessThan => "<",
            Op::LessThanOrEqual => "<=",
            Op::GreaterThan => ">",
            Op::GreaterThanOrEqual => ">=",
            Op::And => "AND",
            Op::Or => "OR",
            Op::Not => "NOT",
            Op::IsNull => "IS NULL",
            Op::IsNotNull => "IS NOT NULL",
            Op::Plus => "+",
            Op::Minus => "-",
            Op::Times => "*",
            Op::Divide => "/",
            Op::Mod => "MOD",
            Op::IsTrue => "IS TRUE",
            Op::IsFalse => "IS FALSE",
            Op::IsNotTrue => "IS NOT TRUE",
            Op::IsNotFalse => "IS NOT FALSE",
            Op::Case => "CASE",
            Op::Coalesce => "COALESCE",
            Op::Extract => "EXTRACT",
            Op::DateFormat => "DATE_FORMAT",
            Op::Lower => "LOWER",
            Op::Upper => "UPPER",
            Op::CharLength => "CHAR_LENGTH",
            Op::RegexpExtract => "REGEXP_EXTRACT",
            Op::SplitIndex => "SPLIT_INDEX",
            Op::Substring => "SUBSTRING",
            Op::Like => "LIKE",
            Op::Concat => "CONCAT",
            Op::Trim => "TRIM",
            Op::Replace => "REPLACE",
            Op::Abs => "ABS",
            Op::AddMillis => "+ INTERVAL (milliseconds)",
            Op::AddMonths => "+ INTERVAL (months)",
        })
    }
}

/// An expression over the input batch's columns.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Expr {
    /// Input column `index`.
    Column { index: usize },
    /// A constant; `value` is its text (`None` for NULL).
    Literal {
        #[serde(rename = "type")]
        sql_type: SqlType,
        value: Option<String>,
    },
    /// `op` applied to `args`.
    Call { op: Op, args: Vec<Expr> },
    /// `input` cast to `type`. Casts widen, except where the planner proves the value fits
    /// (`exact`: the remainder of a `MOD` narrowed to its result type); a value that does not fit
    /// is then an error, never a wrapped value.
    Cast {
        #[serde(rename = "type")]
        sql_type: SqlType,
        input: Box<Expr>,
        #[serde(default)]
        exact: bool,
        /// Text parsed into a number or BOOLEAN, which fails on text that does not parse: the
        /// only casts that fail besides exact ones, so every cast of text is marked.
        #[serde(default)]
        parses: bool,
    },
}

impl Expr {
    /// Whether the expression is arithmetic, logic, comparisons and casts over columns and
    /// literals only (no string, regex or date function): cheaper on a whole batch than the
    /// gather and scatter of some of its rows.
    fn is_cheap(&self) -> bool {
        match self {
            Expr::Column { .. } | Expr::Literal { .. } => true,
            Expr::Cast { input, .. } => input.is_cheap(),
            Expr::Call { op, args } => !op.is_function() && args.iter().all(Expr::is_cheap),
        }
    }

    /// Whether evaluating the expression can fail on some row: a division or `MOD` (the planner
    /// admits floating-point division, which cannot, under the same op), a timestamp moved by an
    /// interval (beyond what its Arrow unit holds), or a cast of text (which may not parse) or that
    /// the planner proved exact. Everything else is evaluated on whole batches where that is
    /// cheaper, so an error on data anywhere else must be counted here.
    fn may_fail(&self) -> bool {
        match self {
            Expr::Column { .. } | Expr::Literal { .. } => false,
            Expr::Cast {
                input,
                exact,
                parses,
                ..
            } => *exact || *parses || input.may_fail(),
            Expr::Call { op, args } => {
                matches!(op, Op::Divide | Op::Mod | Op::AddMillis | Op::AddMonths)
                    || args.iter().any(Expr::may_fail)
            }
        }
    }
}

/// What the planner hands over: the filter (if any), then one expression per output column.
#[derive(Debug, Clone, Deserialize)]
pub struct CalcSpec {
    pub filter: Option<Expr>,
    pub projections: Vec<Expr>,
    /// The output columns' names, one per projection.
    pub names: Vec<String>,
}

/// A value while an expression is evaluated: a column of the batch's length, or a constant.
enum Value {
    Column(ArrayRef),
    Constant(Scalar<ArrayRef>),
}

impl Value {
    fn data_type(&self) -> &DataType {
        match self {
            Value::Column(array) => array.data_type(),
            Value::Constant(scalar) => scalar.get().0.data_type(),
        }
    }

    fn datum(&self) -> &dyn arrow::array::Datum {
        match self {
            Value::Column(array) => array,
            Value::Constant(scalar) => scalar,
        }
    }

    /// The value as a column of `rows` rows.
    fn into_column(self, rows: usize) -> Result<ArrayRef> {
        match self {
            Value::Column(array) => Ok(array),
            Value::Constant(scalar) => {
                let indices = UInt32Array::from(vec![0_u32; rows]);
                Ok(take(scalar.into_inner().as_ref(), &indices, None)?)
            }
        }
    }
}

/// What a calc's functions build once, by their literal argument: regexes and date patterns.
#[derive(Debug, Default)]
struct Prepared {
    regexes: HashMap<String, JavaRegex>,
    dates: HashMap<String, DatePattern>,
    /// By pattern and escape ([`like_key`]).
    likes: HashMap<String, LikePattern>,
}

/// What a calc asks of the JVM it runs in: the few text functions whose Java result depends on
/// more than each character's own mapping, so no table of ours can give it.
pub trait JavaText {
    /// Java's `text.toLowerCase()` in the default locale, as Flink's `LOWER` calls it; asked only
    /// for a text holding a capital sigma, whose small form Java picks by the word around it.
    fn to_lower_case(&self, text: &str) -> std::result::Result<String, String>;
}

/// No JVM to ask (a calc run from Rust alone): a text [`JavaText`] is asked for fails.
#[derive(Debug, Clone, Copy, Default)]
pub struct WithoutJvm;

impl JavaText for WithoutJvm {
    fn to_lower_case(&self, text: &str) -> std::result::Result<String, String> {
        Err(format!(
            "LOWER({text:?}) needs the JVM: Java picks a capital sigma's small form by its word"
        ))
    }
}

/// What evaluating an expression needs besides the batch.
#[derive(Clone, Copy)]
struct Context<'a> {
    prepared: &'a Prepared,
    java: &'a dyn JavaText,
}

fn like_key(pattern: &str, escape: Option<&str>) -> String {
    format!("{pattern}\u{0}{}", escape.unwrap_or(""))
}

/// A calc built for one input schema: checked once, then applied to every batch.
#[derive(Debug)]
pub struct Calc {
    filter: Option<Expr>,
    projections: Vec<Expr>,
    output: SchemaRef,
    prepared: Prepared,
}

impl Calc {
    /// Parses `spec` (JSON) and checks every expression against `input`.
    pub fn try_new(input: &Schema, spec: &str) -> Result<Self> {
        let spec: CalcSpec = serde_json::from_str(spec)
            .map_err(|e| CalcError::Spec(format!("invalid calc description: {e}")))?;
        if spec.names.len() != spec.projections.len() {
            return spec_error(format!(
                "the calc has {} projections but {} names",
                spec.projections.len(),
                spec.names.len()
            ));
        }
        let mut prepared = Prepared::default();
        if let Some(filter) = &spec.filter {
            let data_type = data_type(filter, input, &mut prepared)?;
            if data_type != DataType::Boolean {
                return spec_error(format!("the filter is of type {data_type}, not BOOLEAN"));
            }
        }
        let fields = spec
            .projections
            .iter()
            .zip(&spec.names)
            .map(|(expr, name)| {
                Ok(Field::new(
                    name,
                    data_type(expr, input, &mut prepared)?,
                    true,
                ))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Self {
            filter: spec.filter,
            projections: spec.projections,
            output: Arc::new(Schema::new(fields)),
            prepared,
        })
    }

    pub fn output_schema(&self) -> SchemaRef {
        self.output.clone()
    }

    /// The rows of `batch` the filter keeps, projected, with no JVM to ask (see [`JavaText`]).
    pub fn apply(&self, batch: &RecordBatch) -> Result<RecordBatch> {
        self.apply_in(batch, &WithoutJvm)
    }

    /// The rows of `batch` the filter keeps, projected; `java` answers what only the JVM can.
    pub fn apply_in(&self, batch: &RecordBatch, java: &dyn JavaText) -> Result<RecordBatch> {
        let ctx = Context {
            prepared: &self.prepared,
            java,
        };
        let kept = match &self.filter {
            None => batch.clone(),
            Some(filter) => {
                let condition = evaluate(filter, batch, &ctx)?.into_column(batch.num_rows())?;
                let condition = boolean(&condition)?;
                if condition.true_count() == batch.num_rows() && condition.null_count() == 0 {
                    batch.clone()
                } else {
                    filter_record_batch(batch, condition)?
                }
            }
        };
        let rows = kept.num_rows();
        let columns = self
            .projections
            .iter()
            .map(|expr| evaluate(expr, &kept, &ctx)?.into_column(rows))
            .collect::<Result<Vec<_>>>()?;
        Ok(RecordBatch::try_new_with_options(
            self.output.clone(),
            columns,
            &arrow::array::RecordBatchOptions::new().with_row_count(Some(rows)),
        )?)
    }
}

fn boolean(array: &ArrayRef) -> Result<&BooleanArray> {
    array
        .as_any()
        .downcast_ref::<BooleanArray>()
        .ok_or_else(|| CalcError::Spec(format!("expected BOOLEAN, found {}", array.data_type())))
}

/// TRUE where `condition` is TRUE; FALSE where it is FALSE or NULL.
fn true_only(condition: &BooleanArray) -> BooleanArray {
    if condition.null_count() == 0 {
        condition.clone()
    } else {
        prep_null_mask_filter(condition)
    }
}

pub(crate) fn is_integer(data_type: &DataType) -> bool {
    matches!(
        data_type,
        DataType::Int8 | DataType::Int16 | DataType::Int32 | DataType::Int64
    )
}

pub(crate) fn is_numeric(data_type: &DataType) -> bool {
    is_integer(data_type) || matches!(data_type, DataType::Float32 | DataType::Float64)
}

/// Integer width order, for the casts that only widen.
fn integer_rank(data_type: &DataType) -> Option<u8> {
    match data_type {
        DataType::Int8 => Some(1),
        DataType::Int16 => Some(2),
        DataType::Int32 => Some(3),
        DataType::Int64 => Some(4),
        _ => None,
    }
}

/// The digits of the largest value of an integer type.
fn integer_digits(data_type: &DataType) -> Option<i16> {
    match data_type {
        DataType::Int8 => Some(3),
        DataType::Int16 => Some(5),
        DataType::Int32 => Some(10),
        DataType::Int64 => Some(19),
        _ => None,
    }
}

/// Whether every value of `from` is a value of `to`, so a cast keeps it exactly.
fn widens(from: &DataType, to: &DataType) -> bool {
    match (from, to) {
        (DataType::Decimal128(fp, fs), DataType::Decimal128(tp, ts)) => {
            ts >= fs && i16::from(*tp) - i16::from(*ts) >= i16::from(*fp) - i16::from(*fs)
        }
        (_, DataType::Decimal128(tp, ts)) => {
            integer_digits(from).is_some_and(|d| i16::from(*tp) - i16::from(*ts) >= d)
        }
        // A finer unit holds every value of a coarser one.
        (DataType::Timestamp(from_unit, from_zone), DataType::Timestamp(to_unit, to_zone)) => {
            from_zone == to_zone && unit_rank(from_unit) <= unit_rank(to_unit)
        }
        (DataType::Float32, DataType::Float64) => true,
        // Digits as Java's `toString` and `BigDecimal.toPlainString` write them.
        (_, DataType::Utf8) => is_integer(from) || matches!(from, DataType::Decimal128(..)),
        _ => match (integer_rank(from), integer_rank(to)) {
            (Some(a), Some(b)) => a <= b,
            (Some(_), None) => matches!(to, DataType::Float32 | DataType::Float64),
            _ => from == to,
        },
    }
}

/// `a / b` (or `a % b`) on integers of one type as Java's `/` and `%`: truncated, `MIN / -1`
/// wrapping to `MIN` (and `MIN % -1` giving 0); a zero divisor fails with Java's message. A NULL
/// operand gives NULL without dividing, as in Flink.
fn integer_divide(a: &ArrayRef, b: &ArrayRef, remainder: bool) -> Result<ArrayRef> {
    fn divide<T: arrow::datatypes::ArrowPrimitiveType>(
        a: &ArrayRef,
        b: &ArrayRef,
        remainder: bool,
    ) -> Result<ArrayRef>
    where
        T::Native: arrow::datatypes::ArrowNativeTypeOp,
    {
        use arrow::array::AsArray;
        use arrow::datatypes::ArrowNativeTypeOp;
        let values = a
            .as_primitive::<T>()
            .iter()
            .zip(b.as_primitive::<T>().iter())
            .map(|(x, y)| match (x, y) {
                (Some(_), Some(y)) if y.is_zero() => Err(CalcError::Arithmetic("/ by zero")),
                (Some(x), Some(y)) if remainder => Ok(Some(x.mod_wrapping(y))),
                (Some(x), Some(y)) => Ok(Some(x.div_wrapping(y))),
                _ => Ok(None),
            })
            .collect::<Result<arrow::array::PrimitiveArray<T>>>()?;
        Ok(Arc::new(values))
    }
    match (a.data_type(), b.data_type()) {
        (DataType::Int8, DataType::Int8) => divide::<arrow::datatypes::Int8Type>(a, b, remainder),
        (DataType::Int16, DataType::Int16) => {
            divide::<arrow::datatypes::Int16Type>(a, b, remainder)
        }
        (DataType::Int32, DataType::Int32) => {
            divide::<arrow::datatypes::Int32Type>(a, b, remainder)
        }
        (DataType::Int64, DataType::Int64) => {
            divide::<arrow::datatypes::Int64Type>(a, b, remainder)
        }
        (x, y) => spec_error(format!("`/` of {x} and {y}")),
    }
}

/// `ABS` as Java's `Math.abs`: integers wrap (the smallest value stays itself, also for TINYINT
/// and SMALLINT, which Flink narrows back), `-0.0` becomes `0.0`, NaN stays NaN; DECIMALs keep
/// their type.
fn absolute(array: &ArrayRef) -> Result<ArrayRef> {
    use arrow::array::AsArray;
    use arrow::datatypes::{
        ArrowPrimitiveType, Decimal128Type, Float32Type, Float64Type, Int8Type, Int16Type,
        Int32Type, Int64Type,
    };
    fn each<T: ArrowPrimitiveType>(array: &ArrayRef, f: fn(T::Native) -> T::Native) -> ArrayRef {
        Arc::new(array.as_primitive::<T>().unary::<_, T>(f))
    }
    Ok(match array.data_type() {
        DataType::Int8 => each::<Int8Type>(array, i8::wrapping_abs),
        DataType::Int16 => each::<Int16Type>(array, i16::wrapping_abs),
        DataType::Int32 => each::<Int32Type>(array, i32::wrapping_abs),
        DataType::Int64 => each::<Int64Type>(array, i64::wrapping_abs),
        DataType::Float32 => each::<Float32Type>(array, f32::abs),
        DataType::Float64 => each::<Float64Type>(array, f64::abs),
        DataType::Decimal128(p, s) => Arc::new(
            array
                .as_primitive::<Decimal128Type>()
                .unary::<_, Decimal128Type>(i128::wrapping_abs)
                .with_precision_and_scale(*p, *s)?,
        ),
        other => return spec_error(format!("ABS of {other}")),
    })
}

fn unit_rank(unit: &arrow::datatypes::TimeUnit) -> u8 {
    match unit {
        arrow::datatypes::TimeUnit::Second => 0,
        arrow::datatypes::TimeUnit::Millisecond => 1,
        arrow::datatypes::TimeUnit::Microsecond => 2,
        arrow::datatypes::TimeUnit::Nanosecond => 3,
    }
}

/// The values as columns of `rows` rows.
fn into_columns(values: Vec<Value>, rows: usize) -> Result<Vec<ArrayRef>> {
    values.into_iter().map(|v| v.into_column(rows)).collect()
}

/// A comparison of floating-point columns with IEEE 754's operators (Java's `<`, `==`, ...):
/// NaN compares unequal and unordered to everything, -0.0 equals 0.0. FLOAT widens to DOUBLE
/// exactly first.
fn ieee_compare(op: Op, a: &ArrayRef, b: &ArrayRef) -> Result<ArrayRef> {
    use arrow::array::AsArray;
    let a = arrow::compute::cast(a, &DataType::Float64)?;
    let b = arrow::compute::cast(b, &DataType::Float64)?;
    let compare: fn(f64, f64) -> bool = match op {
        Op::Equals => |x, y| x == y,
        Op::NotEquals => |x, y| x != y,
        Op::LessThan => |x, y| x < y,
        Op::LessThanOrEqual => |x, y| x <= y,
        Op::GreaterThan => |x, y| x > y,
        Op::GreaterThanOrEqual => |x, y| x >= y,
        _ => return spec_error(format!("{op} is not a comparison")),
    };
    let values: BooleanArray = a
        .as_primitive::<arrow::datatypes::Float64Type>()
        .iter()
        .zip(b.as_primitive::<arrow::datatypes::Float64Type>().iter())
        .map(|(x, y)| Some(compare(x?, y?)))
        .collect();
    Ok(Arc::new(values))
}

/// The text of a non-NULL literal.
fn literal_text(expr: &Expr) -> Option<&str> {
    match expr {
        Expr::Literal {
            value: Some(text), ..
        } => Some(text),
        _ => None,
    }
}

/// Argument `i` of `op`, which must be a non-NULL literal.
fn constant_argument(op: Op, args: &[Expr], i: usize) -> Result<&str> {
    args.get(i)
        .and_then(literal_text)
        .ok_or_else(|| CalcError::Spec(format!("{op} takes a constant as argument {i}")))
}

/// Argument `i` of `op`, which must be an integer literal.
fn index_argument(op: Op, args: &[Expr], i: usize) -> Result<i64> {
    constant_argument(op, args, i)?
        .parse::<i64>()
        .map_err(|_| CalcError::Spec(format!("{op} takes an integer constant as argument {i}")))
}

/// The type `expr` evaluates to over `input`, or why it cannot be evaluated; builds what the
/// functions in it need once (into `prepared`).
fn data_type(expr: &Expr, input: &Schema, prepared: &mut Prepared) -> Result<DataType> {
    match expr {
        Expr::Column { index } => input
            .fields()
            .get(*index)
            .map(|f| f.data_type().clone())
            .ok_or_else(|| {
                CalcError::Spec(format!(
                    "column {index} is out of range for an input of {} columns",
                    input.fields().len()
                ))
            }),
        Expr::Literal { sql_type, .. } => Ok(sql_type.arrow()),
        Expr::Cast {
            sql_type,
            input: inner,
            exact,
            parses,
        } => {
            let from = data_type(inner, input, prepared)?;
            let to = sql_type.arrow();
            if (from == DataType::Utf8 && to != DataType::Utf8) != *parses {
                return spec_error(format!(
                    "a CAST from {from} to {to} is marked 'parses' only where it parses text"
                ));
            }
            let narrowing_exact =
                *exact && integer_rank(&from).is_some() && integer_rank(&to).is_some();
            if widens(&from, &to) || narrowing_exact || cast::supported(&from, &to) {
                Ok(to)
            } else {
                spec_error(format!(
                    "CAST from {from} to {to} is not evaluated natively"
                ))
            }
        }
        Expr::Call { op, args } => {
            let types = args
                .iter()
                .map(|a| data_type(a, input, prepared))
                .collect::<Result<Vec<_>>>()?;
            call_type(*op, args, &types, prepared)
        }
    }
}

fn arity(op: Op, types: &[DataType], n: usize) -> Result<()> {
    if types.len() == n {
        Ok(())
    } else {
        spec_error(format!("`{op}` takes {n} arguments, not {}", types.len()))
    }
}

fn call_type(
    op: Op,
    args: &[Expr],
    types: &[DataType],
    prepared: &mut Prepared,
) -> Result<DataType> {
    let string_argument = |i: usize| -> Result<()> {
        if types[i] == DataType::Utf8 {
            Ok(())
        } else {
            spec_error(format!("{op} of {}", types[i]))
        }
    };
    let timestamp_argument = |i: usize| -> Result<()> {
        if matches!(types[i], DataType::Timestamp(_, None)) {
            Ok(())
        } else {
            spec_error(format!("{op} of {} is not evaluated natively", types[i]))
        }
    };
    match op {
        Op::Equals
        | Op::NotEquals
        | Op::LessThan
        | Op::LessThanOrEqual
        | Op::GreaterThan
        | Op::GreaterThanOrEqual => {
            arity(op, types, 2)?;
            if types[0] != types[1] {
                return spec_error(format!(
                    "`{op}` compares {} with {}; operands must be of one type",
                    types[0], types[1]
                ));
            }
            Ok(DataType::Boolean)
        }
        Op::And | Op::Or => {
            arity(op, types, 2)?;
            if types.iter().any(|t| *t != DataType::Boolean) {
                return spec_error(format!("`{op}` of {} and {}", types[0], types[1]));
            }
            Ok(DataType::Boolean)
        }
        Op::Not => {
            arity(op, types, 1)?;
            if types[0] != DataType::Boolean {
                return spec_error(format!("NOT of {}", types[0]));
            }
            Ok(DataType::Boolean)
        }
        Op::IsNull | Op::IsNotNull => {
            arity(op, types, 1)?;
            Ok(DataType::Boolean)
        }
        Op::Plus | Op::Minus | Op::Times => {
            arity(op, types, 2)?;
            if let (DataType::Decimal128(p1, s1), DataType::Decimal128(p2, s2)) =
                (&types[0], &types[1])
            {
                let (a, b) = ((*p1, *s1), (*p2, *s2));
                let result = match op {
                    Op::Times => decimal::times_type(a, b),
                    _ => decimal::plus_type(a, b),
                };
                return match result {
                    Some((p, s)) => Ok(DataType::Decimal128(p, s)),
                    None => spec_error(format!(
                        "`{op}` of {} and {} needs more than 38 digits",
                        types[0], types[1]
                    )),
                };
            }
            if types[0] != types[1] || !is_numeric(&types[0]) {
                return spec_error(format!(
                    "`{op}` of {} and {}; operands must be numbers of one type",
                    types[0], types[1]
                ));
            }
            Ok(types[0].clone())
        }
        Op::Divide => {
            arity(op, types, 2)?;
            match (&types[0], &types[1]) {
                (DataType::Decimal128(p1, s1), DataType::Decimal128(p2, s2)) => {
                    match decimal::divide_type((*p1, *s1), (*p2, *s2)) {
                        Some((p, s)) => Ok(DataType::Decimal128(p, s)),
                        None => spec_error(format!(
                            "`/` of {} and {} is not evaluated natively",
                            types[0], types[1]
                        )),
                    }
                }
                (a, b) if a == b && is_numeric(a) => Ok(a.clone()),
                _ => spec_error(format!(
                    "`/` of {} and {}; operands must be numbers of one type, or DECIMALs",
                    types[0], types[1]
                )),
            }
        }
        Op::Concat => {
            if types.len() < 2 || types.iter().any(|t| *t != DataType::Utf8) {
                return spec_error("CONCAT takes two or more strings");
            }
            Ok(DataType::Utf8)
        }
        Op::Mod => {
            arity(op, types, 2)?;
            if types[0] != types[1] || !is_integer(&types[0]) {
                return spec_error(format!(
                    "MOD of {} and {}; operands must be integers of one type",
                    types[0], types[1]
                ));
            }
            Ok(types[0].clone())
        }
        Op::IsTrue | Op::IsFalse | Op::IsNotTrue | Op::IsNotFalse => {
            arity(op, types, 1)?;
            if types[0] != DataType::Boolean {
                return spec_error(format!("`{op}` of {}", types[0]));
            }
            Ok(DataType::Boolean)
        }
        Op::Case => {
            if types.len() < 3 || types.len() % 2 == 0 {
                return spec_error(format!(
                    "CASE takes conditions, values and an ELSE value, not {} arguments",
                    types.len()
                ));
            }
            let result = &types[types.len() - 1];
            for (i, t) in types.iter().enumerate() {
                let condition = i % 2 == 0 && i + 1 < types.len();
                let expected = if condition {
                    &DataType::Boolean
                } else {
                    result
                };
                if t != expected {
                    return spec_error(format!("CASE argument {i} is of type {t}, not {expected}"));
                }
            }
            Ok(result.clone())
        }
        Op::Coalesce => {
            if types.is_empty() || types.iter().any(|t| t != &types[0]) {
                return spec_error("COALESCE takes arguments of one type");
            }
            Ok(types[0].clone())
        }
        Op::Extract => {
            arity(op, types, 2)?;
            TimeField::parse(constant_argument(op, args, 0)?).map_err(CalcError::Spec)?;
            timestamp_argument(1)?;
            Ok(DataType::Int64)
        }
        Op::DateFormat => {
            arity(op, types, 2)?;
            timestamp_argument(0)?;
            let pattern = constant_argument(op, args, 1)?;
            let parsed = DatePattern::parse(pattern).map_err(CalcError::Spec)?;
            prepared.dates.insert(pattern.to_string(), parsed);
            Ok(DataType::Utf8)
        }
        Op::Trim => {
            arity(op, types, 3)?;
            string_argument(0)?;
            constant_argument(op, args, 1)?;
            TrimSide::parse(constant_argument(op, args, 2)?).map_err(CalcError::Spec)?;
            Ok(DataType::Utf8)
        }
        Op::Replace => {
            arity(op, types, 3)?;
            string_argument(0)?;
            if constant_argument(op, args, 1)?.is_empty() {
                return spec_error("REPLACE of the empty string is not evaluated natively");
            }
            constant_argument(op, args, 2)?;
            Ok(DataType::Utf8)
        }
        Op::AddMillis | Op::AddMonths => {
            arity(op, types, 2)?;
            if !matches!(
                types[0],
                DataType::Timestamp(
                    TimeUnit::Millisecond | TimeUnit::Microsecond | TimeUnit::Nanosecond,
                    None
                )
            ) {
                return spec_error(format!("{op} of {}", types[0]));
            }
            index_argument(op, args, 1)?;
            Ok(types[0].clone())
        }
        Op::Abs => {
            arity(op, types, 1)?;
            if !is_numeric(&types[0]) && !matches!(types[0], DataType::Decimal128(..)) {
                return spec_error(format!("ABS of {}", types[0]));
            }
            Ok(types[0].clone())
        }
        Op::Lower | Op::Upper | Op::CharLength => {
            arity(op, types, 1)?;
            string_argument(0)?;
            Ok(if op == Op::CharLength {
                DataType::Int32
            } else {
                DataType::Utf8
            })
        }
        Op::RegexpExtract => {
            arity(op, types, 3)?;
            string_argument(0)?;
            let pattern = constant_argument(op, args, 1)?;
            index_argument(op, args, 2)?;
            let compiled = JavaRegex::compile(pattern).map_err(CalcError::Spec)?;
            prepared.regexes.insert(pattern.to_string(), compiled);
            Ok(DataType::Utf8)
        }
        Op::Like => {
            if types.len() != 2 && types.len() != 3 {
                return spec_error(format!("LIKE takes 2 or 3 arguments, not {}", types.len()));
            }
            string_argument(0)?;
            let pattern = constant_argument(op, args, 1)?;
            let escape = if types.len() == 3 {
                Some(constant_argument(op, args, 2)?)
            } else {
                None
            };
            let compiled = LikePattern::compile(pattern, escape).map_err(CalcError::Spec)?;
            prepared.likes.insert(like_key(pattern, escape), compiled);
            Ok(DataType::Boolean)
        }
        Op::SplitIndex => {
            arity(op, types, 3)?;
            string_argument(0)?;
            if constant_argument(op, args, 1)?.is_empty() {
                return spec_error("SPLIT_INDEX by an empty separator is not evaluated natively");
            }
            index_argument(op, args, 2)?;
            Ok(DataType::Utf8)
        }
        Op::Substring => {
            if types.len() != 2 && types.len() != 3 {
                return spec_error(format!(
                    "SUBSTRING takes 2 or 3 arguments, not {}",
                    types.len()
                ));
            }
            string_argument(0)?;
            index_argument(op, args, 1)?;
            if types.len() == 3 {
                index_argument(op, args, 2)?;
            }
            Ok(DataType::Utf8)
        }
    }
}

/// A function of [`call_type`]'s last group, over one batch.
fn function(op: Op, args: &[Expr], batch: &RecordBatch, ctx: &Context<'_>) -> Result<Value> {
    let input = |i: usize| -> Result<ArrayRef> {
        let arg = args
            .get(i)
            .ok_or_else(|| CalcError::Spec(format!("{op} lacks argument {i}")))?;
        evaluate(arg, batch, ctx)?.into_column(batch.num_rows())
    };
    let missing = || CalcError::Spec(format!("{op} was not built for this calc"));
    let column = match op {
        Op::Extract => {
            let field =
                TimeField::parse(constant_argument(op, args, 0)?).map_err(CalcError::Spec)?;
            functions::extract(field, &input(1)?)
        }
        Op::DateFormat => ctx
            .prepared
            .dates
            .get(constant_argument(op, args, 1)?)
            .ok_or_else(missing)?
            .format(&input(0)?),
        Op::Trim => functions::trim(
            &input(0)?,
            constant_argument(op, args, 1)?,
            TrimSide::parse(constant_argument(op, args, 2)?).map_err(CalcError::Spec)?,
        ),
        Op::Replace => functions::replace(
            &input(0)?,
            constant_argument(op, args, 1)?,
            constant_argument(op, args, 2)?,
        ),
        Op::AddMillis => functions::add_millis(&input(0)?, index_argument(op, args, 1)?),
        Op::AddMonths => functions::add_months(&input(0)?, index_argument(op, args, 1)?),
        Op::Lower => functions::lower(&input(0)?, ctx.java),
        Op::Upper => functions::upper(&input(0)?),
        Op::CharLength => functions::char_length(&input(0)?),
        Op::RegexpExtract => ctx
            .prepared
            .regexes
            .get(constant_argument(op, args, 1)?)
            .ok_or_else(missing)?
            .extract(&input(0)?, index_argument(op, args, 2)?),
        Op::Like => {
            let escape = if args.len() == 3 {
                Some(constant_argument(op, args, 2)?)
            } else {
                None
            };
            ctx.prepared
                .likes
                .get(&like_key(constant_argument(op, args, 1)?, escape))
                .ok_or_else(missing)?
                .matches(&input(0)?)
        }
        Op::SplitIndex => functions::split_index(
            &input(0)?,
            constant_argument(op, args, 1)?,
            index_argument(op, args, 2)?,
        ),
        Op::Substring => functions::substring(
            &input(0)?,
            index_argument(op, args, 1)?,
            if args.len() == 3 {
                Some(index_argument(op, args, 2)?)
            } else {
                None
            },
        ),
        _ => return spec_error(format!("{op} is not a function")),
    };
    Ok(Value::Column(column.map_err(CalcError::Spec)?))
}

fn literal(sql_type: SqlType, value: Option<&str>) -> Result<ArrayRef> {
    let Some(text) = value else {
        return Ok(new_null_array(&sql_type.arrow(), 1));
    };
    let bad = |e: &dyn std::fmt::Display| {
        CalcError::Spec(format!("literal {text:?} of {sql_type:?}: {e}"))
    };
    Ok(match sql_type {
        SqlType::Boolean => Arc::new(BooleanArray::from(vec![
            text.parse::<bool>().map_err(|e| bad(&e))?,
        ])),
        SqlType::Tinyint => Arc::new(Int8Array::from(vec![
            text.parse::<i8>().map_err(|e| bad(&e))?,
        ])),
        SqlType::Smallint => Arc::new(Int16Array::from(vec![
            text.parse::<i16>().map_err(|e| bad(&e))?,
        ])),
        SqlType::Int => Arc::new(Int32Array::from(vec![
            text.parse::<i32>().map_err(|e| bad(&e))?,
        ])),
        SqlType::Bigint => Arc::new(Int64Array::from(vec![
            text.parse::<i64>().map_err(|e| bad(&e))?,
        ])),
        SqlType::Float => Arc::new(Float32Array::from(vec![
            text.parse::<f32>().map_err(|e| bad(&e))?,
        ])),
        SqlType::Double => Arc::new(Float64Array::from(vec![
            text.parse::<f64>().map_err(|e| bad(&e))?,
        ])),
        SqlType::String => Arc::new(StringArray::from(vec![text])),
        SqlType::Decimal(p, s) => Arc::new(
            Decimal128Array::from(vec![decimal::parse(text, p, s).map_err(|e| bad(&e))?])
                .with_precision_and_scale(p, s)?,
        ),
        SqlType::Timestamp(p) | SqlType::TimestampLtz(p) => {
            let millis = text.parse::<i64>().map_err(|e| bad(&e))?;
            let per_milli: i64 = match time_unit(p) {
                arrow::datatypes::TimeUnit::Microsecond => 1_000,
                arrow::datatypes::TimeUnit::Nanosecond => 1_000_000,
                _ => 1,
            };
            let value = millis
                .checked_mul(per_milli)
                .ok_or_else(|| bad(&"out of range"))?;
            cast_with_options(
                &Int64Array::from(vec![value]),
                &sql_type.arrow(),
                &CastOptions::default(),
            )?
        }
    })
}

fn evaluate(expr: &Expr, batch: &RecordBatch, ctx: &Context<'_>) -> Result<Value> {
    let rows = batch.num_rows();
    match expr {
        Expr::Column { index } => batch
            .columns()
            .get(*index)
            .cloned()
            .map(Value::Column)
            .ok_or_else(|| CalcError::Spec(format!("column {index} is out of range"))),
        // Over no rows a constant is an empty column: Flink's code computes an expression per
        // row (its planner leaves a constant it cannot compute unreduced), so what no row reaches
        // never fails, a text that does not parse or a division by zero included.
        Expr::Literal { sql_type, .. } if rows == 0 => {
            Ok(Value::Column(new_empty_array(&sql_type.arrow())))
        }
        Expr::Literal { sql_type, value } => Ok(Value::Constant(Scalar::new(literal(
            *sql_type,
            value.as_deref(),
        )?))),
        Expr::Cast {
            sql_type,
            input,
            exact,
            ..
        } => {
            let options = CastOptions {
                safe: false,
                ..CastOptions::default()
            };
            let to = sql_type.arrow();
            let value = evaluate(input, batch, ctx)?;
            // Casts that keep every value (or that the planner proved exact) as Arrow casts;
            // the others as Flink casts.
            let kernel = if widens(value.data_type(), &to) || *exact {
                |array: &ArrayRef, to: &DataType, options: &CastOptions| {
                    cast_with_options(array, to, options).map_err(CalcError::from)
                }
            } else {
                |array: &ArrayRef, to: &DataType, _: &CastOptions| cast::cast(array, to)
            };
            let from = value.data_type().clone();
            let cast = match value {
                Value::Column(array) => {
                    Value::Column(decimal_cast(&array, &to, |a| kernel(a, &to, &options))?)
                }
                Value::Constant(scalar) => {
                    Value::Constant(Scalar::new(decimal_cast(&scalar.into_inner(), &to, |a| {
                        kernel(a, &to, &options)
                    })?))
                }
            };
            // Flink's casts to DECIMAL (`DecimalDataUtils.castToDecimal`) give NULL for a value
            // of more digits than the type's precision, which only its text cast makes.
            if matches!(from, DataType::Decimal128(..)) {
                within_precision(cast)
            } else {
                Ok(cast)
            }
        }
        Expr::Call { op, args } if op.is_function() => function(*op, args, batch, ctx),
        Expr::Call { op: Op::Case, args } if args.iter().any(Expr::may_fail) => {
            case_on_reached_rows(args, batch, ctx)
        }
        Expr::Call {
            op: op @ (Op::And | Op::Or),
            args,
        } if args.get(1).is_some_and(Expr::may_fail) => {
            let [left, right] = args.as_slice() else {
                return spec_error(format!("{op} takes two arguments, not {}", args.len()));
            };
            let left = evaluate(left, batch, ctx)?.into_column(rows)?;
            let left = boolean(&left)?;
            // Flink's code skips the right side where the left one decides alone.
            let decided = if *op == Op::And {
                true_only(&not(left)?)
            } else {
                true_only(left)
            };
            let right = evaluate_on(right, batch, ctx, &not(&decided)?)?;
            let right = boolean(&right)?;
            Ok(Value::Column(Arc::new(if *op == Op::And {
                and_kleene(left, right)?
            } else {
                or_kleene(left, right)?
            })))
        }
        Expr::Call { op, args } => {
            let values = args
                .iter()
                .map(|a| evaluate(a, batch, ctx))
                .collect::<Result<Vec<_>>>()?;
            call(*op, values, rows)
        }
    }
}

/// `expr` on the rows of `batch` that `rows` marks (a mask without NULLs); callers read only
/// those rows. An expression that can fail, or one with a costly function, runs on the marked rows
/// alone (the others are NULL); a cheap one that cannot fail runs on the whole batch, which saves
/// gathering the rows and scattering the values back.
fn evaluate_on(
    expr: &Expr,
    batch: &RecordBatch,
    ctx: &Context<'_>,
    rows: &BooleanArray,
) -> Result<ArrayRef> {
    let all = batch.num_rows();
    if rows.true_count() == all || (!expr.may_fail() && expr.is_cheap()) {
        return evaluate(expr, batch, ctx)?.into_column(all);
    }
    let subset = filter_record_batch(batch, rows)?;
    let values = evaluate(expr, &subset, ctx)?.into_column(subset.num_rows())?;
    // Back to the batch's rows: the i-th marked row takes the i-th value.
    let mut next = 0_u32;
    let positions: UInt32Array = rows
        .values()
        .iter()
        .map(|marked| {
            marked.then(|| {
                next += 1;
                next - 1
            })
        })
        .collect();
    Ok(take(values.as_ref(), &positions, None)?)
}

/// `CASE` as Flink's code runs it: each condition on the rows no earlier condition took, each
/// value on the rows its condition took, the ELSE value on the rows left.
fn case_on_reached_rows(args: &[Expr], batch: &RecordBatch, ctx: &Context<'_>) -> Result<Value> {
    let rows = batch.num_rows();
    let mut left = BooleanArray::from(vec![true; rows]);
    let mut branches = Vec::with_capacity(args.len() / 2);
    let mut pairs = args.chunks_exact(2);
    for pair in pairs.by_ref() {
        let condition = evaluate_on(&pair[0], batch, ctx, &left)?;
        let taken = and_kleene(&left, &true_only(boolean(&condition)?))?;
        let value = evaluate_on(&pair[1], batch, ctx, &taken)?;
        left = and_kleene(&left, &not(&taken)?)?;
        branches.push((taken, value));
    }
    let [otherwise] = pairs.remainder() else {
        return spec_error("CASE without an ELSE value");
    };
    let mut result = evaluate_on(otherwise, batch, ctx, &left)?;
    for (taken, value) in branches.iter().rev() {
        result = zip(taken, value, &result)?;
    }
    within_precision(Value::Column(result))
}

/// `array` cast to `to` by `kernel`, but a DECIMAL written as text as Flink's `DecimalData`
/// writes it (`BigDecimal.toPlainString`): every digit, also of a value of more digits than its
/// precision, which Arrow's text would cut.
fn decimal_cast(
    array: &ArrayRef,
    to: &DataType,
    kernel: impl Fn(&ArrayRef) -> Result<ArrayRef>,
) -> Result<ArrayRef> {
    use arrow::array::AsArray;
    use arrow::datatypes::Decimal128Type;

    let (DataType::Decimal128(_, scale), DataType::Utf8) = (array.data_type(), to) else {
        return kernel(array);
    };
    let scale = usize::try_from(*scale).map_err(|_| {
        CalcError::Spec(format!(
            "a DECIMAL of negative scale {scale} written as text"
        ))
    })?;
    let text: arrow::array::StringArray = array
        .as_primitive::<Decimal128Type>()
        .iter()
        .map(|v| v.map(|v| plain_decimal(v, scale)))
        .collect();
    Ok(Arc::new(text))
}

/// The unscaled `value` of `scale` as `BigDecimal.toPlainString` writes it.
fn plain_decimal(value: i128, scale: usize) -> String {
    let digits = value.unsigned_abs().to_string();
    let sign = if value < 0 { "-" } else { "" };
    if scale == 0 {
        return format!("{sign}{digits}");
    }
    if digits.len() > scale {
        let (whole, fraction) = digits.split_at(digits.len() - scale);
        format!("{sign}{whole}.{fraction}")
    } else {
        format!("{sign}0.{digits:0>scale$}")
    }
}

/// A `CASE` (or `IF`) result as Flink's code gives it, which casts each branch's value to the
/// result type: a DECIMAL value of more digits than the type's precision is NULL. Flink's own
/// text cast makes such values (`9.99` as DECIMAL(2, 1) is the unscaled 100), which it keeps
/// elsewhere, `COALESCE` included.
fn within_precision(value: Value) -> Result<Value> {
    use arrow::array::AsArray;
    use arrow::datatypes::Decimal128Type;

    let Value::Column(column) = &value else {
        return Ok(value);
    };
    let DataType::Decimal128(precision, scale) = *column.data_type() else {
        return Ok(value);
    };
    let decimals = column.as_primitive::<Decimal128Type>();
    let fits = |v: &i128| decimal::fits(*v, precision);
    if decimals.iter().all(|v| v.as_ref().is_none_or(fits)) {
        return Ok(value);
    }
    let nulled: Decimal128Array = decimals.iter().map(|v| v.filter(fits)).collect();
    Ok(Value::Column(Arc::new(
        nulled.with_precision_and_scale(precision, scale)?,
    )))
}

fn call(op: Op, values: Vec<Value>, rows: usize) -> Result<Value> {
    let binary =
        |f: fn(
            &dyn arrow::array::Datum,
            &dyn arrow::array::Datum,
        ) -> std::result::Result<ArrayRef, ArrowError>|
         -> Result<Value> { Ok(Value::Column(f(values[0].datum(), values[1].datum())?)) };
    let compare = |f: fn(
        &dyn arrow::array::Datum,
        &dyn arrow::array::Datum,
    ) -> std::result::Result<BooleanArray, ArrowError>|
     -> Result<Value> {
        Ok(Value::Column(Arc::new(f(
            values[0].datum(),
            values[1].datum(),
        )?)))
    };
    let is_decimal = values
        .first()
        .is_some_and(|v| matches!(v.data_type(), DataType::Decimal128(..)));
    match op {
        Op::Plus | Op::Minus | Op::Times if is_decimal => {
            let arithmetic = match op {
                Op::Plus => Arithmetic::Plus,
                Op::Minus => Arithmetic::Minus,
                _ => Arithmetic::Times,
            };
            let columns = into_columns(values, rows)?;
            Ok(Value::Column(decimal::apply(
                arithmetic,
                &columns[0],
                &columns[1],
            )?))
        }
        Op::Divide
            if values.first().is_some_and(|v| {
                matches!(v.data_type(), DataType::Float32 | DataType::Float64)
            }) =>
        {
            binary(numeric::div)
        }
        Op::Divide | Op::Mod => {
            let columns = into_columns(values, rows)?;
            Ok(Value::Column(if is_decimal && op == Op::Divide {
                decimal::divide(&columns[0], &columns[1])?
            } else {
                integer_divide(&columns[0], &columns[1], op == Op::Mod)?
            }))
        }
        Op::Concat => {
            let mut columns = values.into_iter().map(|v| v.into_column(rows));
            let mut result = columns
                .next()
                .ok_or_else(|| CalcError::Spec("CONCAT without arguments".into()))??;
            for column in columns {
                let column = column?;
                result = Arc::new(
                    arrow::compute::kernels::concat_elements::concat_elements_utf8(
                        result
                            .as_any()
                            .downcast_ref::<StringArray>()
                            .ok_or_else(|| CalcError::Spec("CONCAT of a non-string".into()))?,
                        column
                            .as_any()
                            .downcast_ref::<StringArray>()
                            .ok_or_else(|| CalcError::Spec("CONCAT of a non-string".into()))?,
                    )?,
                );
            }
            Ok(Value::Column(result))
        }
        Op::Equals
        | Op::NotEquals
        | Op::LessThan
        | Op::LessThanOrEqual
        | Op::GreaterThan
        | Op::GreaterThanOrEqual
            if values.first().is_some_and(|v| {
                matches!(v.data_type(), DataType::Float32 | DataType::Float64)
            }) =>
        {
            let columns = into_columns(values, rows)?;
            Ok(Value::Column(ieee_compare(op, &columns[0], &columns[1])?))
        }
        Op::Equals => compare(cmp::eq),
        Op::NotEquals => compare(cmp::neq),
        Op::LessThan => compare(cmp::lt),
        Op::LessThanOrEqual => compare(cmp::lt_eq),
        Op::GreaterThan => compare(cmp::gt),
        Op::GreaterThanOrEqual => compare(cmp::gt_eq),
        Op::Plus => binary(numeric::add_wrapping),
        Op::Minus => binary(numeric::sub_wrapping),
        Op::Times => binary(numeric::mul_wrapping),
        Op::Case => {
            // From the ELSE value back: each branch's value where its condition is TRUE (a NULL
            // condition is not TRUE), else what the later branches gave.
            let mut values = values;
            let mut result = values
                .pop()
                .ok_or_else(|| CalcError::Spec("CASE without arguments".into()))?;
            while let (Some(value), Some(condition)) = (values.pop(), values.pop()) {
                let mask = true_only(boolean(&condition.into_column(rows)?)?);
                result = Value::Column(zip(&mask, value.datum(), result.datum())?);
            }
            within_precision(result)
        }
        Op::Coalesce => {
            let mut values = values;
            let mut result = values
                .pop()
                .ok_or_else(|| CalcError::Spec("COALESCE without arguments".into()))?;
            while let Some(value) = values.pop() {
                let column = value.into_column(rows)?;
                let present = is_not_null(column.as_ref())?;
                result = Value::Column(zip(&present, &column, result.datum())?);
            }
            Ok(result)
        }
        Op::Abs => {
            let column = values
                .into_iter()
                .next()
                .ok_or_else(|| CalcError::Spec("ABS without an argument".into()))?
                .into_column(rows)?;
            Ok(Value::Column(absolute(&column)?))
        }
        Op::IsTrue | Op::IsFalse | Op::IsNotTrue | Op::IsNotFalse => {
            let column = values
                .into_iter()
                .next()
                .ok_or_else(|| CalcError::Spec(format!("`{op}` without an argument")))?
                .into_column(rows)?;
            let value = boolean(&column)?;
            let result = match op {
                Op::IsTrue => true_only(value),
                Op::IsFalse => true_only(&not(value)?),
                Op::IsNotTrue => not(&true_only(value))?,
                _ => not(&true_only(&not(value)?))?,
            };
            Ok(Value::Column(Arc::new(result)))
        }
        Op::And | Op::Or | Op::Not | Op::IsNull | Op::IsNotNull => {
            let columns = into_columns(values, rows)?;
            let result: BooleanArray = match op {
                Op::And => and_kleene(boolean(&columns[0])?, boolean(&columns[1])?)?,
                Op::Or => or_kleene(boolean(&columns[0])?, boolean(&columns[1])?)?,
                Op::Not => not(boolean(&columns[0])?)?,
                Op::IsNull => is_null(columns[0].as_ref())?,
                _ => is_not_null(columns[0].as_ref())?,
            };
            Ok(Value::Column(Arc::new(result)))
        }
        _ => spec_error(format!("{op} is evaluated as a function")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::AsArray;
    use arrow::datatypes::Int64Type;

    fn input() -> RecordBatch {
        RecordBatch::try_from_iter(vec![
            (
                "a",
                Arc::new(Int64Array::from(vec![
                    Some(1),
                    None,
                    Some(i64::MAX),
                    Some(-7),
                ])) as ArrayRef,
            ),
            (
                "b",
                Arc::new(Int32Array::from(vec![Some(10), Some(20), None, Some(40)])) as ArrayRef,
            ),
            (
                "s",
                Arc::new(StringArray::from(vec![
                    Some("x"),
                    Some("y"),
                    None,
                    Some("x"),
                ])) as ArrayRef,
            ),
        ])
        .unwrap()
    }

    #[test]
    fn filters_on_true_only_and_projects() {
        // a > 0 OR s = 'y': row 1 has a NULL and s = 'y' (TRUE), row 2 a > 0 and s NULL (TRUE),
        // row 3 FALSE OR TRUE.
        let spec = r#"{
            "filter": {"kind":"call","op":"AND","args":[
                {"kind":"call","op":"IS_NOT_NULL","args":[{"kind":"column","index":1}]},
                {"kind":"call","op":"OR","args":[
                    {"kind":"call","op":"GREATER_THAN","args":[{"kind":"column","index":0},{"kind":"literal","type":"BIGINT","value":"0"}]},
                    {"kind":"call","op":"EQUALS","args":[{"kind":"column","index":2},{"kind":"literal","type":"STRING","value":"y"}]}]}]},
            "projections": [{"kind":"column","index":2},
                            {"kind":"call","op":"PLUS","args":[{"kind":"column","index":0},{"kind":"cast","type":"BIGINT","input":{"kind":"column","index":1}}]}],
            "names": ["s", "sum"]}"#;
        let calc = Calc::try_new(&input().schema(), spec).unwrap();
        let out = calc.apply(&input()).unwrap();
        assert_eq!(out.num_rows(), 2);
        assert_eq!(
            out.column(0).as_string::<i32>().iter().collect::<Vec<_>>(),
            vec![Some("x"), Some("y")]
        );
        assert_eq!(
            out.column(1)
                .as_primitive::<Int64Type>()
                .iter()
                .collect::<Vec<_>>(),
            vec![Some(11), None]
        );
    }

    #[test]
    fn integer_arithmetic_wraps_as_java_does() {
        let spec = r#"{"filter": null,
            "projections": [{"kind":"call","op":"PLUS","args":[{"kind":"column","index":0},{"kind":"literal","type":"BIGINT","value":"1"}]},
                            {"kind":"call","op":"MOD","args":[{"kind":"column","index":0},{"kind":"literal","type":"BIGINT","value":"3"}]}],
            "names": ["next", "m"]}"#;
        let calc = Calc::try_new(&input().schema(), spec).unwrap();
        let out = calc.apply(&input()).unwrap();
        assert_eq!(
            out.column(0)
                .as_primitive::<Int64Type>()
                .iter()
                .collect::<Vec<_>>(),
            vec![Some(2), None, Some(i64::MIN), Some(-6)]
        );
        // Java's % keeps the dividend's sign: -7 % 3 == -1.
        assert_eq!(out.column(1).as_primitive::<Int64Type>().value(3), -1);
    }

    #[test]
    fn an_exact_cast_narrows_a_remainder_and_a_plain_one_wraps_as_java_does() {
        let narrowed = r#"{"filter": null,
            "projections": [{"kind":"cast","type":"INT","exact":true,"input":
                {"kind":"call","op":"MOD","args":[{"kind":"column","index":0},{"kind":"literal","type":"BIGINT","value":"5"}]}}],
            "names": ["m"]}"#;
        let calc = Calc::try_new(&input().schema(), narrowed).unwrap();
        let out = calc.apply(&input()).unwrap();
        assert_eq!(
            out.column(0)
                .as_primitive::<arrow::datatypes::Int32Type>()
                .iter()
                .collect::<Vec<_>>(),
            vec![Some(1), None, Some(2), Some(-2)]
        );
        // a: 1, NULL, MAX, -7; (int) MAX keeps the low 32 bits.
        let plain = r#"{"filter": null,
            "projections": [{"kind":"cast","type":"INT","input":{"kind":"column","index":0}}],
            "names": ["c"]}"#;
        let out = Calc::try_new(&input().schema(), plain)
            .unwrap()
            .apply(&input())
            .unwrap();
        assert_eq!(
            out.column(0)
                .as_primitive::<arrow::datatypes::Int32Type>()
                .iter()
                .collect::<Vec<_>>(),
            vec![Some(1), None, Some(-1), Some(-7)]
        );
    }

    #[test]
    fn case_coalesce_and_truth_tests_treat_null_as_sql_does() {
        // CASE WHEN a > 1 THEN a WHEN b IS NULL THEN -1 ELSE 0 END, COALESCE(s, 'none'),
        // (a > 1) IS NOT TRUE
        let spec = r#"{"filter": null,
            "projections": [
                {"kind":"call","op":"CASE","args":[
                    {"kind":"call","op":"GREATER_THAN","args":[{"kind":"column","index":0},{"kind":"literal","type":"BIGINT","value":"1"}]},
                    {"kind":"column","index":0},
                    {"kind":"call","op":"IS_NULL","args":[{"kind":"column","index":1}]},
                    {"kind":"literal","type":"BIGINT","value":"-1"},
                    {"kind":"literal","type":"BIGINT","value":"0"}]},
                {"kind":"call","op":"COALESCE","args":[{"kind":"column","index":2},{"kind":"literal","type":"STRING","value":"none"}]},
                {"kind":"call","op":"IS_NOT_TRUE","args":[
                    {"kind":"call","op":"GREATER_THAN","args":[{"kind":"column","index":0},{"kind":"literal","type":"BIGINT","value":"1"}]}]}],
            "names": ["c", "s", "t"]}"#;
        let calc = Calc::try_new(&input().schema(), spec).unwrap();
        let out = calc.apply(&input()).unwrap();
        // a: 1, NULL, MAX, -7; b: 10, 20, NULL, 40; s: x, y, NULL, x.
        assert_eq!(
            out.column(0)
                .as_primitive::<Int64Type>()
                .iter()
                .collect::<Vec<_>>(),
            vec![Some(0), Some(0), Some(i64::MAX), Some(0)]
        );
        assert_eq!(
            out.column(1).as_string::<i32>().iter().collect::<Vec<_>>(),
            vec![Some("x"), Some("y"), Some("none"), Some("x")]
        );
        assert_eq!(
            out.column(2).as_boolean().iter().collect::<Vec<_>>(),
            vec![Some(true), Some(true), Some(false), Some(true)]
        );
    }

    #[test]
    fn case_nulls_a_decimal_past_its_precision_which_coalesce_and_cast_keep() {
        // Flink's text cast rounds '9.99' into DECIMAL(2, 1) as the unscaled 100 and keeps it;
        // CASE and IF (a CASE here) give NULL for it, COALESCE keeps it.
        let schema = Arc::new(Schema::new(vec![
            Field::new("s", DataType::Utf8, true),
            Field::new("d", DataType::Decimal128(2, 1), true),
        ]));
        let d = decimal::decimals(vec![Some(100), Some(15), None], 2, 1);
        let batch = RecordBatch::try_new(
            schema.clone(),
            vec![Arc::new(StringArray::from(vec!["9.99", "1.5", "x"])), d],
        )
        .unwrap();
        let cast = r#"{"kind":"cast","type":"DECIMAL(2,1)","parses":true,"input":{"kind":"column","index":0}}"#;
        let zero = r#"{"kind":"literal","type":"DECIMAL(2,1)","value":"0.0"}"#;
        let present = |index: usize| {
            format!(
                r#"{{"kind":"call","op":"IS_NOT_NULL","args":[{{"kind":"column","index":{index}}}]}}"#
            )
        };
        let spec = format!(
            r#"{{"filter": null, "projections": [
                {{"kind":"call","op":"CASE","args":[{}, {cast}, {zero}]}},
                {{"kind":"call","op":"COALESCE","args":[{cast}, {zero}]}},
                {cast},
                {{"kind":"call","op":"CASE","args":[{}, {{"kind":"column","index":1}}, {zero}]}}],
            "names": ["case", "coalesce", "cast", "column"]}}"#,
            present(0),
            present(1)
        );
        let out = Calc::try_new(&schema, &spec)
            .unwrap()
            .apply(&batch)
            .unwrap();
        let column = |i: usize| -> Vec<Option<i128>> {
            out.column(i)
                .as_primitive::<arrow::datatypes::Decimal128Type>()
                .iter()
                .collect()
        };
        assert_eq!(column(0), vec![None, Some(15), Some(0)]);
        assert_eq!(column(1), vec![Some(100), Some(15), Some(0)]);
        assert_eq!(column(2), vec![Some(100), Some(15), Some(0)]);
        assert_eq!(column(3), vec![None, Some(15), Some(0)]);
    }

    /// A DECIMAL of more digits than its precision (Flink's text cast makes one): a cast to a
    /// wider DECIMAL gives NULL where it does not fit (`castToDecimal`), its text every digit
    /// (`toPlainString`).
    #[test]
    fn casts_of_a_decimal_past_its_precision_are_flinks() {
        let schema = Arc::new(Schema::new(vec![Field::new(
            "d",
            DataType::Decimal128(2, 1),
            true,
        )]));
        let d = decimal::decimals(vec![Some(100), Some(15), Some(-5), None], 2, 1);
        let batch = RecordBatch::try_new(schema.clone(), vec![d]).unwrap();
        let spec = r#"{"filter": null, "projections": [
            {"kind":"cast","type":"DECIMAL(3,2)","input":{"kind":"column","index":0}},
            {"kind":"cast","type":"STRING","input":{"kind":"column","index":0}}],
            "names": ["wider", "text"]}"#;
        let out = Calc::try_new(&schema, spec).unwrap().apply(&batch).unwrap();
        assert_eq!(
            out.column(0)
                .as_primitive::<arrow::datatypes::Decimal128Type>()
                .iter()
                .collect::<Vec<_>>(),
            vec![None, Some(150), Some(-50), None]
        );
        assert_eq!(
            out.column(1).as_string::<i32>().iter().collect::<Vec<_>>(),
            vec![Some("10.0"), Some("1.5"), Some("-0.5"), None]
        );
        assert_eq!(plain_decimal(5, 3), "0.005");
        assert_eq!(plain_decimal(-123, 0), "-123");
        assert_eq!(plain_decimal(0, 2), "0.00");
    }

    #[test]
    fn floating_point_comparisons_follow_java_not_arrows_total_order() {
        let doubles: ArrayRef = Arc::new(Float64Array::from(vec![
            Some(f64::NAN),
            Some(-0.0),
            Some(1.5),
            None,
        ]));
        let zeros: ArrayRef = Arc::new(Float64Array::from(vec![Some(0.0); 4]));
        let at = |op| {
            ieee_compare(op, &doubles, &zeros)
                .unwrap()
                .as_boolean()
                .iter()
                .collect::<Vec<_>>()
        };
        assert_eq!(
            at(Op::Equals),
            vec![Some(false), Some(true), Some(false), None]
        );
        assert_eq!(
            at(Op::NotEquals),
            vec![Some(true), Some(false), Some(true), None]
        );
        assert_eq!(
            at(Op::GreaterThan),
            vec![Some(false), Some(false), Some(true), None]
        );
        assert_eq!(
            at(Op::LessThanOrEqual),
            vec![Some(false), Some(true), Some(false), None]
        );
    }

    #[test]
    fn literal_projection_repeats_per_row_and_null_literals_are_typed() {
        let spec = r#"{"filter": {"kind":"call","op":"IS_NULL","args":[{"kind":"literal","type":"INT","value":null}]},
            "projections": [{"kind":"literal","type":"INT","value":"5"}], "names": ["five"]}"#;
        let calc = Calc::try_new(&input().schema(), spec).unwrap();
        let out = calc.apply(&input()).unwrap();
        assert_eq!(out.num_rows(), 4);
        assert_eq!(out.column(0).data_type(), &DataType::Int32);
    }

    /// x: 7, 8, MIN, 5, NULL; y: 0, 2, -1, 0, 0; z: NULL, 1, 1, 1, 1 (all INT).
    fn divisions() -> RecordBatch {
        RecordBatch::try_from_iter(vec![
            (
                "x",
                Arc::new(Int32Array::from(vec![
                    Some(7),
                    Some(8),
                    Some(i32::MIN),
                    Some(5),
                    None,
                ])) as ArrayRef,
            ),
            (
                "y",
                Arc::new(Int32Array::from(vec![0, 2, -1, 0, 0])) as ArrayRef,
            ),
            (
                "z",
                Arc::new(Int32Array::from(vec![
                    None,
                    Some(1),
                    Some(1),
                    Some(1),
                    Some(1),
                ])) as ArrayRef,
            ),
        ])
        .unwrap()
    }

    /// The calc of `filter` (or none) and `projections`, applied to [`divisions`].
    fn divide_rows(filter: &str, projections: &[&str]) -> Result<RecordBatch> {
        let names: Vec<String> = (0..projections.len())
            .map(|i| format!("\"p{i}\""))
            .collect();
        let spec = format!(
            r#"{{"filter": {filter}, "projections": [{}], "names": [{}]}}"#,
            projections.join(","),
            names.join(",")
        );
        Calc::try_new(&divisions().schema(), &spec)?.apply(&divisions())
    }

    const X: &str = r#"{"kind":"column","index":0}"#;
    const Y: &str = r#"{"kind":"column","index":1}"#;

    fn call(op: &str, args: &[&str]) -> String {
        format!(
            r#"{{"kind":"call","op":"{op}","args":[{}]}}"#,
            args.join(",")
        )
    }

    fn int(value: i32) -> String {
        format!(r#"{{"kind":"literal","type":"INT","value":"{value}"}}"#)
    }

    fn ints(batch: &RecordBatch, column: usize) -> Vec<Option<i32>> {
        batch
            .column(column)
            .as_primitive::<arrow::datatypes::Int32Type>()
            .iter()
            .collect()
    }

    fn booleans(batch: &RecordBatch, column: usize) -> Vec<Option<bool>> {
        boolean(batch.column(column)).unwrap().iter().collect()
    }

    /// A constant that cannot be computed fails only where a row reaches it, as Flink's per-row
    /// code computes it: not in a CASE branch no row takes, on the right of an AND no row gets
    /// past, or in the projections of a filter that keeps no row.
    #[test]
    fn a_constant_that_cannot_be_computed_fails_only_where_a_row_reaches_it() {
        let bad_text = r#"{"kind":"cast","type":"INT","parses":true,"input":{"kind":"literal","type":"STRING","value":"negative"}}"#;
        let by_zero = call("DIVIDE", &[&int(1), &int(0)]);
        let never = call("GREATER_THAN", &[Y, &int(1_000_000)]);
        let some = call("GREATER_THAN", &[Y, &int(0)]);
        for failing in [bad_text, by_zero.as_str()] {
            let out = divide_rows("null", &[&call("CASE", &[&never, failing, X])]).unwrap();
            assert_eq!(ints(&out, 0), ints(&divisions(), 0));
            let out = divide_rows(
                "null",
                &[&call("AND", &[&never, &call("EQUALS", &[failing, X])])],
            )
            .unwrap();
            assert_eq!(booleans(&out, 0), vec![Some(false); 5]);
            let out = divide_rows(&never, &[failing, X]).unwrap();
            assert_eq!(out.num_rows(), 0);
            assert_eq!(out.schema().field(0).data_type(), &DataType::Int32);
            // Where a row reaches it, it fails as Flink's code does on that row.
            assert!(divide_rows("null", &[&call("CASE", &[&some, failing, X])]).is_err());
            assert!(divide_rows(&some, &[failing]).is_err());
        }
        let err = divide_rows("null", &[bad_text]).unwrap_err();
        assert!(matches!(err, CalcError::NumberFormat(_)), "{err}");
    }

    #[test]
    fn division_by_zero_fails_as_java_does_on_the_rows_flink_evaluates_it_for() {
        let quotient = call("DIVIDE", &[X, Y]);
        let remainder = call("MOD", &[X, Y]);
        let y_not_zero = call("NOT_EQUALS", &[Y, &int(0)]);
        // Every row: 7 / 0 fails (a NULL dividend over 0 would not).
        for failing in [&quotient, &remainder] {
            let err = divide_rows("null", &[failing]).unwrap_err();
            assert!(matches!(err, CalcError::Arithmetic("/ by zero")), "{err}");
        }
        // Only the rows the filter keeps: MIN / -1 wraps to MIN as in Java, MIN % -1 is 0.
        let kept = divide_rows(&y_not_zero, &[&quotient, &remainder]).unwrap();
        assert_eq!(ints(&kept, 0), vec![Some(4), Some(i32::MIN)]);
        assert_eq!(ints(&kept, 1), vec![Some(0), Some(0)]);
        // CASE: the branch only where its condition is TRUE.
        let case = call("CASE", &[&y_not_zero, &quotient, &int(-1)]);
        let guarded_mod = call("CASE", &[&y_not_zero, &remainder, &int(-1)]);
        let out = divide_rows("null", &[&case, &guarded_mod]).unwrap();
        assert_eq!(
            ints(&out, 0),
            vec![Some(-1), Some(4), Some(i32::MIN), Some(-1), Some(-1)]
        );
        assert_eq!(
            ints(&out, 1),
            vec![Some(-1), Some(0), Some(0), Some(-1), Some(-1)]
        );
        // A later condition that divides runs only where the earlier ones were not TRUE.
        let y_zero = call("EQUALS", &[Y, &int(0)]);
        let later = call(
            "CASE",
            &[
                &y_zero,
                &int(0),
                &call("GREATER_THAN", &[&quotient, &int(1)]),
                &int(1),
                &int(2),
            ],
        );
        let out = divide_rows("null", &[&later]).unwrap();
        assert_eq!(
            ints(&out, 0),
            vec![Some(0), Some(1), Some(2), Some(0), Some(0)]
        );
        // AND skips the right side where the left is FALSE, OR where it is TRUE; a NULL left side
        // does not skip it.
        let big = call("GREATER_THAN", &[&quotient, &int(1)]);
        let out = divide_rows(
            "null",
            &[
                &call("AND", &[&y_not_zero, &big]),
                &call("OR", &[&y_zero, &big]),
            ],
        )
        .unwrap();
        assert_eq!(
            booleans(&out, 0),
            vec![
                Some(false),
                Some(true),
                Some(false),
                Some(false),
                Some(false)
            ]
        );
        assert_eq!(
            booleans(&out, 1),
            vec![Some(true), Some(true), Some(false), Some(true), Some(true)]
        );
        let z_positive = call("GREATER_THAN", &[r#"{"kind":"column","index":2}"#, &int(0)]);
        let err = divide_rows(&call("AND", &[&z_positive, &big]), &[X]).unwrap_err();
        assert!(matches!(err, CalcError::Arithmetic("/ by zero")), "{err}");
    }

    #[test]
    fn floating_point_division_by_zero_is_ieee() {
        let double = |input: &str| format!(r#"{{"kind":"cast","type":"DOUBLE","input":{input}}}"#);
        let out = divide_rows("null", &[&call("DIVIDE", &[&double(X), &double(Y)])]).unwrap();
        let values: Vec<Option<f64>> = out
            .column(0)
            .as_primitive::<arrow::datatypes::Float64Type>()
            .iter()
            .collect();
        assert_eq!(
            values,
            vec![
                Some(f64::INFINITY),
                Some(4.0),
                Some(2_147_483_648.0),
                Some(f64::INFINITY),
                None
            ]
        );
    }

    #[test]
    fn refuses_what_it_does_not_evaluate_exactly() {
        let schema = input().schema();
        let cases = [
            (
                r#"{"filter": {"kind":"call","op":"EQUALS","args":[{"kind":"column","index":0},{"kind":"column","index":1}]}, "projections": [], "names": []}"#,
                "`=` compares Int64 with Int32; operands must be of one type",
            ),
            (
                r#"{"filter": null, "projections": [{"kind":"call","op":"MOD","args":[{"kind":"column","index":0},{"kind":"column","index":1}]}], "names": ["m"]}"#,
                "MOD of Int64 and Int32; operands must be integers of one type",
            ),
            (
                r#"{"filter": null, "projections": [{"kind":"cast","type":"FLOAT","parses":true,"input":{"kind":"column","index":2}}], "names": ["c"]}"#,
                "CAST from Utf8 to Float32 is not evaluated natively",
            ),
            (
                r#"{"filter": null, "projections": [{"kind":"cast","type":"DOUBLE","input":{"kind":"column","index":2}}], "names": ["c"]}"#,
                "a CAST from Utf8 to Float64 is marked 'parses' only where it parses text",
            ),
            (
                r#"{"filter": null, "projections": [{"kind":"column","index":9}], "names": ["c"]}"#,
                "column 9 is out of range for an input of 3 columns",
            ),
            (
                r#"{"filter": {"kind":"column","index":0}, "projections": [], "names": []}"#,
                "the filter is of type Int64, not BOOLEAN",
            ),
        ];
        for (spec, message) in cases {
            let err = Calc::try_new(&schema, spec).unwrap_err();
            assert_eq!(err.to_string(), message);
        }
        assert!(
            Calc::try_new(&schema, "{")
                .unwrap_err()
                .to_string()
                .starts_with("invalid calc description")
        );
    }
}
