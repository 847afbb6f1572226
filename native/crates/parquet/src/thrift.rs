//! A check of the Thrift (compact protocol) structures a file holds (its footer, its column and
//! offset indexes) before parquet-rs decodes them: parquet-rs reserves room for as many elements
//! as a list claims, so a corrupt count would be an allocation of any size (and an abort when it
//! fails). Here every list must fit the bytes left, every field must be complete,
//! and nesting is bounded; the walk reads each byte once and allocates nothing.
//!
//! parquet-rs decodes a field by its id alone, whatever type the field's header declares (a
//! list's elements likewise), so a walk by declared types would read other bytes than parquet-rs
//! does whenever the two differ. The walk therefore knows the fields of the structures parquet-rs
//! decodes (parquet.thrift, less the fields parquet-rs skips: the encryption fields, which the
//! build leaves out, and a few it does not use): a known field is read as parquet-rs reads it, by
//! its type; any other, which parquet-rs skips, by its declared type.

/// Deeper nesting than any Parquet structure has.
const MAX_DEPTH: usize = 64;

/// Checks that `bytes` begin with one complete, plausible Thrift struct of `schema`; returns
/// its length.
pub(crate) fn check_struct(bytes: &[u8], schema: &Schema) -> Result<usize, String> {
    let mut walk = Walk { bytes, at: 0 };
    walk.structure(0, schema)?;
    Ok(walk.at)
}

/// The fields of a Thrift struct or union that parquet-rs decodes, by id.
pub(crate) struct Schema {
    name: &'static str,
    fields: &'static [(i16, Ty)],
    /// The fields parquet-rs fails the file without: the walk ends where parquet-rs does.
    required: &'static [(i16, &'static str)],
}

/// The type of a field.
#[derive(Clone, Copy)]
enum Ty {
    Bool,
    /// An `i8`: one byte.
    Byte,
    /// An `i16`, `i32` or `i64` (or an enum): one zigzag varint.
    Int,
    Double,
    /// A `binary` or `string`.
    Binary,
    Struct(&'static Schema),
    List(Elem),
}

/// The type of a list's elements.
#[derive(Clone, Copy)]
enum Elem {
    Bool,
    Int,
    Binary,
    Struct(&'static Schema),
}

/// A struct whose fields parquet-rs does not decode (an empty struct, such as a logical type
/// without parameters): walked by declared types.
static OPAQUE: Schema = Schema {
    name: "struct",
    fields: &[],
    required: &[],
};

/// `FileMetaData`, the footer.
pub(crate) static FILE_META_DATA: Schema = Schema {
    name: "FileMetaData",
    fields: &[
        (1, Ty::Int),
        (2, Ty::List(Elem::Struct(&SCHEMA_ELEMENT))),
        (3, Ty::Int),
        (4, Ty::List(Elem::Struct(&ROW_GROUP))),
        (5, Ty::List(Elem::Struct(&KEY_VALUE))),
        (6, Ty::Binary),
        (7, Ty::List(Elem::Struct(&COLUMN_ORDER))),
    ],
    required: &[
        (1, "version"),
        (2, "schema"),
        (3, "num_rows"),
        (4, "row_groups"),
    ],
};

static SCHEMA_ELEMENT: Schema = Schema {
    name: "SchemaElement",
    fields: &[
        (1, Ty::Int),
        (2, Ty::Int),
        (3, Ty::Int),
        (4, Ty::Binary),
        (5, Ty::Int),
        (6, Ty::Int),
        (7, Ty::Int),
        (8, Ty::Int),
        (9, Ty::Int),
        (10, Ty::Struct(&LOGICAL_TYPE)),
    ],
    required: &[(4, "name")],
};

static LOGICAL_TYPE: Schema = Schema {
    name: "LogicalType",
    fields: &[
        (1, Ty::Struct(&OPAQUE)),
        (2, Ty::Struct(&OPAQUE)),
        (3, Ty::Struct(&OPAQUE)),
        (4, Ty::Struct(&OPAQUE)),
        (5, Ty::Struct(&DECIMAL_TYPE)),
        (6, Ty::Struct(&OPAQUE)),
        (7, Ty::Struct(&TIME_TYPE)),
        (8, Ty::Struct(&TIME_TYPE)),
        (10, Ty::Struct(&INT_TYPE)),
        (11, Ty::Struct(&OPAQUE)),
        (12, Ty::Struct(&OPAQUE)),
        (13, Ty::Struct(&OPAQUE)),
        (14, Ty::Struct(&OPAQUE)),
        (15, Ty::Struct(&OPAQUE)),
        (16, Ty::Struct(&VARIANT_TYPE)),
        (17, Ty::Struct(&GEOMETRY_TYPE)),
        (18, Ty::Struct(&GEOGRAPHY_TYPE)),
    ],
    required: &[],
};

static DECIMAL_TYPE: Schema = Schema {
    name: "DecimalType",
    fields: &[(1, Ty::Int), (2, Ty::Int)],
    required: &[(1, "scale"), (2, "precision")],
};

/// `TimeType` and `TimestampType`.
static TIME_TYPE: Schema = Schema {
    name: "TimestampType",
    fields: &[(1, Ty::Bool), (2, Ty::Struct(&TIME_UNIT))],
    required: &[(1, "isAdjustedToUTC"), (2, "unit")],
};

static TIME_UNIT: Schema = Schema {
    name: "TimeUnit",
    fields: &[
        (1, Ty::Struct(&OPAQUE)),
        (2, Ty::Struct(&OPAQUE)),
        (3, Ty::Struct(&OPAQUE)),
    ],
    required: &[],
};

static INT_TYPE: Schema = Schema {
    name: "IntType",
    fields: &[(1, Ty::Byte), (2, Ty::Bool)],
    required: &[(1, "bitWidth"), (2, "isSigned")],
};

static VARIANT_TYPE: Schema = Schema {
    name: "VariantType",
    fields: &[(1, Ty::Byte)],
    required: &[],
};

static GEOMETRY_TYPE: Schema = Schema {
    name: "GeometryType",
    fields: &[(1, Ty::Binary)],
    required: &[],
};

static GEOGRAPHY_TYPE: Schema = Schema {
    name: "GeographyType",
    fields: &[(1, Ty::Binary), (2, Ty::Int)],
    required: &[],
};

static ROW_GROUP: Schema = Schema {
    name: "RowGroup",
    fields: &[
        (1, Ty::List(Elem::Struct(&COLUMN_CHUNK))),
        (2, Ty::Int),
        (3, Ty::Int),
        (4, Ty::List(Elem::Struct(&SORTING_COLUMN))),
        (5, Ty::Int),
        // 6 (total_compressed_size) is skipped by parquet-rs.
        (7, Ty::Int),
    ],
    required: &[(1, "columns"), (2, "total_byte_size"), (3, "num_rows")],
};

static SORTING_COLUMN: Schema = Schema {
    name: "SortingColumn",
    fields: &[(1, Ty::Int), (2, Ty::Bool), (3, Ty::Bool)],
    required: &[(1, "column_idx"), (2, "descending"), (3, "nulls_first")],
};

static COLUMN_CHUNK: Schema = Schema {
    name: "ColumnChunk",
    fields: &[
        (1, Ty::Binary),
        (2, Ty::Int),
        (3, Ty::Struct(&COLUMN_META_DATA)),
        (4, Ty::Int),
        (5, Ty::Int),
        (6, Ty::Int),
        (7, Ty::Int),
    ],
    required: &[(2, "file_offset")],
};

static COLUMN_META_DATA: Schema = Schema {
    name: "ColumnMetaData",
    fields: &[
        (1, Ty::Int),
        (2, Ty::List(Elem::Int)),
        // 3 (path_in_schema) and 8 (key_value_metadata) are skipped by parquet-rs.
        (4, Ty::Int),
        (5, Ty::Int),
        (6, Ty::Int),
        (7, Ty::Int),
        (9, Ty::Int),
        (10, Ty::Int),
        (11, Ty::Int),
        (12, Ty::Struct(&STATISTICS)),
        (13, Ty::List(Elem::Struct(&PAGE_ENCODING_STATS))),
        (14, Ty::Int),
        (15, Ty::Int),
        (16, Ty::Struct(&SIZE_STATISTICS)),
        (17, Ty::Struct(&GEOSPATIAL_STATISTICS)),
    ],
    required: &[
        (2, "encodings"),
        (4, "codec"),
        (5, "num_values"),
        (6, "total_uncompressed_size"),
        (7, "total_compressed_size"),
        (9, "data_page_offset"),
    ],
};

static KEY_VALUE: Schema = Schema {
    name: "KeyValue",
    fields: &[(1, Ty::Binary), (2, Ty::Binary)],
    required: &[(1, "key")],
};

static STATISTICS: Schema = Schema {
    name: "Statistics",
    fields: &[
        (1, Ty::Binary),
        (2, Ty::Binary),
        (3, Ty::Int),
        (4, Ty::Int),
        (5, Ty::Binary),
        (6, Ty::Binary),
        (7, Ty::Bool),
        (8, Ty::Bool),
    ],
    required: &[],
};

static PAGE_ENCODING_STATS: Schema = Schema {
    name: "PageEncodingStats",
    fields: &[(1, Ty::Int), (2, Ty::Int), (3, Ty::Int)],
    required: &[(1, "page_type"), (2, "encoding"), (3, "count")],
};

static SIZE_STATISTICS: Schema = Schema {
    name: "SizeStatistics",
    fields: &[
        (1, Ty::Int),
        (2, Ty::List(Elem::Int)),
        (3, Ty::List(Elem::Int)),
    ],
    required: &[],
};

static GEOSPATIAL_STATISTICS: Schema = Schema {
    name: "GeospatialStatistics",
    fields: &[(1, Ty::Struct(&BOUNDING_BOX)), (2, Ty::List(Elem::Int))],
    required: &[],
};

static BOUNDING_BOX: Schema = Schema {
    name: "BoundingBox",
    fields: &[
        (1, Ty::Double),
        (2, Ty::Double),
        (3, Ty::Double),
        (4, Ty::Double),
        (5, Ty::Double),
        (6, Ty::Double),
        (7, Ty::Double),
        (8, Ty::Double),
    ],
    required: &[(1, "xmin"), (2, "xmax"), (3, "ymin"), (4, "ymax")],
};

static COLUMN_ORDER: Schema = Schema {
    name: "ColumnOrder",
    fields: &[(1, Ty::Struct(&OPAQUE))],
    required: &[],
};

/// `ColumnIndex`, a column chunk's page statistics.
pub(crate) static COLUMN_INDEX: Schema = Schema {
    name: "ColumnIndex",
    fields: &[
        (1, Ty::List(Elem::Bool)),
        (2, Ty::List(Elem::Binary)),
        (3, Ty::List(Elem::Binary)),
        (4, Ty::Int),
        (5, Ty::List(Elem::Int)),
        (6, Ty::List(Elem::Int)),
        (7, Ty::List(Elem::Int)),
    ],
    required: &[
        (1, "null_pages"),
        (2, "min_values"),
        (3, "max_values"),
        (4, "boundary_order"),
    ],
};

/// `OffsetIndex`, a column chunk's page locations.
pub(crate) static OFFSET_INDEX: Schema = Schema {
    name: "OffsetIndex",
    fields: &[
        (1, Ty::List(Elem::Struct(&PAGE_LOCATION))),
        (2, Ty::List(Elem::Int)),
    ],
    required: &[(1, "page_locations")],
};

static PAGE_LOCATION: Schema = Schema {
    name: "PageLocation",
    fields: &[(1, Ty::Int), (2, Ty::Int), (3, Ty::Int)],
    required: &[
        (1, "offset"),
        (2, "compressed_page_size"),
        (3, "first_row_index"),
    ],
};

/// `PageHeader`, before each page of a column chunk.
static PAGE_HEADER: Schema = Schema {
    name: "PageHeader",
    fields: &[
        (1, Ty::Int),
        (2, Ty::Int),
        (3, Ty::Int),
        (4, Ty::Int),
        (5, Ty::Struct(&DATA_PAGE_HEADER)),
        (6, Ty::Struct(&OPAQUE)),
        (7, Ty::Struct(&DICTIONARY_PAGE_HEADER)),
        (8, Ty::Struct(&DATA_PAGE_HEADER_V2)),
    ],
    required: &[
        (1, "type"),
        (2, "uncompressed_page_size"),
        (3, "compressed_page_size"),
    ],
};

static DATA_PAGE_HEADER: Schema = Schema {
    name: "DataPageHeader",
    fields: &[
        (1, Ty::Int),
        (2, Ty::Int),
        (3, Ty::Int),
        (4, Ty::Int),
        (5, Ty::Struct(&STATISTICS)),
    ],
    required: &[
        (1, "num_values"),
        (2, "encoding"),
        (3, "definition_level_encoding"),
        (4, "repetition_level_encoding"),
    ],
};

static DICTIONARY_PAGE_HEADER: Schema = Schema {
    name: "DictionaryPageHeader",
    fields: &[(1, Ty::Int), (2, Ty::Int), (3, Ty::Bool)],
    required: &[(1, "num_values"), (2, "encoding")],
};

static DATA_PAGE_HEADER_V2: Schema = Schema {
    name: "DataPageHeaderV2",
    fields: &[
        (1, Ty::Int),
        (2, Ty::Int),
        (3, Ty::Int),
        (4, Ty::Int),
        (5, Ty::Int),
        (6, Ty::Int),
        (7, Ty::Bool),
        (8, Ty::Struct(&STATISTICS)),
    ],
    required: &[
        (1, "num_values"),
        (2, "num_nulls"),
        (3, "num_rows"),
        (4, "encoding"),
        (5, "definition_levels_byte_length"),
        (6, "repetition_levels_byte_length"),
    ],
};

/// Parquet's `PageType.DICTIONARY_PAGE`.
const DICTIONARY_PAGE: i64 = 2;

/// What a dictionary page's header claims: its sizes and how many values it holds.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct DictionaryPage {
    pub(crate) uncompressed_size: i64,
    pub(crate) compressed_size: i64,
    pub(crate) values: i64,
}

/// The header of the page `bytes` begin with, read as parquet-rs reads it: `None` for a page
/// other than a dictionary page, else what the dictionary page claims. An error says the header
/// is corrupt, or runs past `bytes` (`Err(None)`).
pub(crate) fn dictionary_page(bytes: &[u8]) -> Result<Option<DictionaryPage>, Option<String>> {
    let truncated = |e: String| {
        if e.contains("ends inside") || e.contains("runs past the end") {
            None
        } else {
            Some(e)
        }
    };
    check_struct(bytes, &PAGE_HEADER).map_err(truncated)?;
    // The header is complete and plausible: read the fields parquet-rs reads.
    let mut walk = Walk { bytes, at: 0 };
    let (mut kind, mut uncompressed_size, mut compressed_size, mut values) = (None, 0, 0, None);
    let mut id = 0i64;
    while let Some((declared, next)) = walk.field(id).map_err(Some)? {
        id = next;
        match id {
            1 => kind = Some(walk.zigzag().map_err(Some)?),
            2 => uncompressed_size = walk.zigzag().map_err(Some)?,
            3 => compressed_size = walk.zigzag().map_err(Some)?,
            7 => values = Some(walk.dictionary_values().map_err(Some)?),
            _ => match Walk::known(&PAGE_HEADER, id) {
                Some(ty) => walk.typed(ty, 0).map_err(Some)?,
                None => walk.value(declared, 0).map_err(Some)?,
            },
        }
    }
    Ok(match (kind, values) {
        (Some(DICTIONARY_PAGE), Some(values)) => Some(DictionaryPage {
            uncompressed_size,
            compressed_size,
            values,
        }),
        _ => None,
    })
}

struct Walk<'a> {
    bytes: &'a [u8],
    at: usize,
}

// Compact protocol type ids.
const BOOLEAN_TRUE: u8 = 1;
const BOOLEAN_FALSE: u8 = 2;
const BYTE: u8 = 3;
const I16: u8 = 4;
const I32: u8 = 5;
const I64: u8 = 6;
const DOUBLE: u8 = 7;
const BINARY: u8 = 8;
const LIST: u8 = 9;
const STRUCT: u8 = 12;

impl Walk<'_> {
    fn left(&self) -> usize {
        self.bytes.len() - self.at
    }

    fn byte(&mut self) -> Result<u8, String> {
        let byte = *self
            .bytes
            .get(self.at)
            .ok_or_else(|| format!("ends inside a structure at byte {}", self.at))?;
        self.at += 1;
        Ok(byte)
    }

    fn skip(&mut self, count: usize) -> Result<(), String> {
        if count > self.left() {
            return Err(format!(
                "a value of {count} bytes at byte {} runs past the end ({} bytes)",
                self.at,
                self.bytes.len()
            ));
        }
        self.at += count;
        Ok(())
    }

    fn varint(&mut self) -> Result<u64, String> {
        let mut value = 0u64;
        for shift in (0..70).step_by(7) {
            let byte = self.byte()?;
            if shift == 63 && byte > 1 {
                break;
            }
            value |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(format!("a varint longer than 64 bits at byte {}", self.at))
    }

    fn zigzag(&mut self) -> Result<i64, String> {
        let value = self.varint()?;
        Ok((value >> 1) as i64 ^ -((value & 1) as i64))
    }

    /// The `num_values` of a `DictionaryPageHeader` (checked already), walking past it.
    fn dictionary_values(&mut self) -> Result<i64, String> {
        let mut values = 0;
        let mut id = 0i64;
        while let Some((declared, next)) = self.field(id)? {
            id = next;
            match Self::known(&DICTIONARY_PAGE_HEADER, id) {
                Some(_) if id == 1 => values = self.zigzag()?,
                Some(ty) => self.typed(ty, 1)?,
                None => self.value(declared, 1)?,
            }
        }
        Ok(values)
    }

    /// The element count of a list, set or map, checked against the bytes left: each element
    /// takes at least `least` bytes.
    fn count(&mut self, count: u64, least: usize) -> Result<usize, String> {
        let fits = usize::try_from(count)
            .ok()
            .filter(|count| count.saturating_mul(least) <= self.left());
        fits.ok_or_else(|| {
            format!(
                "a collection at byte {} claims {count} elements, more than the {} bytes left hold",
                self.at,
                self.left()
            )
        })
    }

    /// The next field header of a struct whose last field was `id`: the field's declared type
    /// and id, or `None` at the struct's end.
    fn field(&mut self, id: i64) -> Result<Option<(u8, i64)>, String> {
        let header = self.byte()?;
        let kind = header & 0x0f;
        if kind == 0 {
            return Ok(None);
        }
        let id = match header >> 4 {
            // A field id that is not a delta: an i16, zigzag varint.
            0 => self.zigzag()?,
            delta => id + i64::from(delta),
        };
        Ok(Some((kind, id)))
    }

    /// The field of `schema` with id `id`, if parquet-rs decodes it.
    fn known(schema: &Schema, id: i64) -> Option<Ty> {
        schema
            .fields
            .iter()
            .find(|(field, _)| i64::from(*field) == id)
            .map(|(_, ty)| *ty)
    }

    fn structure(&mut self, depth: usize, schema: &Schema) -> Result<(), String> {
        if depth > MAX_DEPTH {
            return Err(format!(
                "structures nested deeper than {MAX_DEPTH} at byte {}",
                self.at
            ));
        }
        let mut id = 0i64;
        // Which of the ids 0 to 63 were read.
        let mut seen = 0u64;
        loop {
            let start = self.at;
            let Some((kind, next)) = self.field(id)? else {
                return match schema.required.iter().find(|(r, _)| seen & (1 << r) == 0) {
                    Some((missing, field)) => Err(format!(
                        "{} ending at byte {start} lacks its required field {missing} ({field})",
                        schema.name
                    )),
                    None => Ok(()),
                };
            };
            id = next;
            if (0..64).contains(&id) {
                seen |= 1 << id;
            }
            let known = Self::known(schema, id);
            match known {
                // parquet-rs takes a boolean field's value from its header, and fails without one.
                Some(Ty::Bool) if kind != BOOLEAN_TRUE && kind != BOOLEAN_FALSE => {
                    return Err(format!(
                        "field {id} of {} at byte {start} has type {kind}, not bool",
                        schema.name
                    ));
                }
                Some(ty) => self.typed(ty, depth)?,
                // Booleans carry their value in the field header.
                None if kind == BOOLEAN_TRUE || kind == BOOLEAN_FALSE => {}
                None => self.value(kind, depth)?,
            }
        }
    }

    /// A value of a known field, read as parquet-rs reads it (by the field's type).
    fn typed(&mut self, ty: Ty, depth: usize) -> Result<(), String> {
        match ty {
            Ty::Bool => Ok(()),
            Ty::Byte => self.skip(1),
            Ty::Int => self.varint().map(|_| ()),
            Ty::Double => self.skip(8),
            Ty::Binary => self.value(BINARY, depth),
            Ty::Struct(schema) => self.structure(depth + 1, schema),
            Ty::List(element) => {
                // The header's element type is not read: the elements are of the field's type.
                let header = self.byte()?;
                let claimed = match header >> 4 {
                    15 => self.varint()?,
                    small => u64::from(small),
                };
                let count = self.count(claimed, 1)?;
                for _ in 0..count {
                    match element {
                        Elem::Bool => self.skip(1)?,
                        Elem::Int => self.varint().map(|_| ())?,
                        Elem::Binary => self.value(BINARY, depth + 1)?,
                        Elem::Struct(schema) => self.structure(depth + 1, schema)?,
                    }
                }
                Ok(())
            }
        }
    }

    /// A value of a field parquet-rs skips, skipped as parquet-rs skips it: by its declared type.
    fn value(&mut self, kind: u8, depth: usize) -> Result<(), String> {
        if depth > MAX_DEPTH {
            return Err(format!(
                "values nested deeper than {MAX_DEPTH} at byte {}",
                self.at
            ));
        }
        match kind {
            // A boolean's value is in its field header; parquet-rs reads nothing for one in a
            // list either.
            BOOLEAN_TRUE | BOOLEAN_FALSE => Ok(()),
            BYTE => self.skip(1),
            I16 | I32 | I64 => self.varint().map(|_| ()),
            DOUBLE => self.skip(8),
            BINARY => {
                let length = self.varint()?;
                let length = usize::try_from(length).unwrap_or(usize::MAX);
                self.skip(length)
            }
            LIST => {
                let header = self.byte()?;
                // Some writers write an empty list as a single zero byte.
                if header == 0 {
                    return Ok(());
                }
                let element = header & 0x0f;
                let claimed = match header >> 4 {
                    15 => self.varint()?,
                    small => u64::from(small),
                };
                if element == BOOLEAN_TRUE || element == BOOLEAN_FALSE {
                    return Ok(());
                }
                let count = self.count(claimed, least_bytes(element)?)?;
                for _ in 0..count {
                    self.value(element, depth + 1)?;
                }
                Ok(())
            }
            STRUCT => self.structure(depth + 1, &OPAQUE),
            // parquet-rs skips no sets, maps or UUIDs: no Parquet structure holds one.
            other => Err(format!("a value of type {other} at byte {}", self.at)),
        }
    }
}

/// The fewest bytes a skipped list element of `kind` takes (a boolean takes none).
fn least_bytes(kind: u8) -> Result<usize, String> {
    match kind {
        BYTE | I16 | I32 | I64 | BINARY | LIST | STRUCT => Ok(1),
        DOUBLE => Ok(8),
        other => Err(format!("a list of an unknown type {other}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn well_formed_structures_pass_and_their_length_is_returned() {
        // field 1: i32 = 150 (zigzag 300), field 2: list of 3 i64, field 3: binary "ab", stop.
        let bytes = [
            0x15, 0xac, 0x02, 0x19, 0x36, 0x02, 0x04, 0x06, 0x18, 0x02, b'a', b'b', 0x00, 0xff,
        ];
        assert_eq!(check_struct(&bytes, &OPAQUE), Ok(13));
    }

    #[test]
    fn a_list_claiming_more_elements_than_bytes_left_fails() {
        // field 1: list of i64 claiming 2^31 elements (long form), then nothing.
        let bytes = [0x19, 0xf6, 0x80, 0x80, 0x80, 0x80, 0x08, 0x00];
        let error = check_struct(&bytes, &OPAQUE).err().unwrap_or_default();
        assert!(error.contains("claims 2147483648 elements"), "{error}");
    }

    #[test]
    fn truncated_and_unknown_input_fails() {
        assert!(check_struct(&[0x18, 0x05, b'a'], &OPAQUE).is_err());
        assert!(check_struct(&[0x1e, 0x00], &OPAQUE).is_err());
        assert!(check_struct(&[], &OPAQUE).is_err());
        let deep = vec![0x1c; 200];
        assert!(check_struct(&deep, &OPAQUE).is_err());
    }

    #[test]
    fn known_fields_are_read_by_their_type_as_parquet_rs_reads_them() {
        // FileMetaData field 2 (the schema, a list) declared as an i64: a walk by declared types
        // reads a varint, parquet-rs a list header claiming 2^21 - 1 elements.
        let bytes = [0x15, 0x02, 0x16, 0xfc, 0xff, 0xff, 0x7f, 0x00];
        assert_eq!(check_struct(&bytes, &OPAQUE), Ok(8));
        let error = check_struct(&bytes, &FILE_META_DATA)
            .err()
            .unwrap_or_default();
        assert!(error.contains("claims 2097151 elements"), "{error}");
        // The same with the field id given in full rather than as a delta.
        let bytes = [0x06, 0x04, 0xfc, 0xff, 0xff, 0x7f, 0x00];
        let error = check_struct(&bytes, &FILE_META_DATA)
            .err()
            .unwrap_or_default();
        assert!(error.contains("claims 2097151 elements"), "{error}");
        // An integer field declared as a list (as some writers wrote ColumnMetaData field 15) is
        // read as parquet-rs reads it: one varint.
        let bytes = [0x19, 0x1c, 0x00];
        assert_eq!(check_struct(&bytes, &SIZE_STATISTICS), Ok(3));
        let error = check_struct(&bytes[..1], &SIZE_STATISTICS)
            .err()
            .unwrap_or_default();
        assert!(error.contains("ends inside a structure"), "{error}");
        // A boolean field without its value in the header fails, as in parquet-rs.
        let bytes = [0x15, 0x02, 0x15, 0x02, 0x00];
        let error = check_struct(&bytes, &SORTING_COLUMN)
            .err()
            .unwrap_or_default();
        assert!(error.contains("field 2 of SortingColumn"), "{error}");
        // Fields parquet-rs does not know are walked by their declared types.
        let bytes = [0x18, 0x01, b'k', 0x08, 0x08, 0x02, b'a', b'b', 0x00];
        assert_eq!(check_struct(&bytes, &KEY_VALUE), Ok(9));
        // The walk ends where parquet-rs ends: at a struct without a field it requires.
        let error = check_struct(&bytes[3..], &KEY_VALUE)
            .err()
            .unwrap_or_default();
        assert!(
            error.contains("KeyValue ending at byte 5 lacks its required field 1"),
            "{error}"
        );
    }

    #[test]
    fn a_dictionary_page_header_says_what_it_claims() {
        // type 2 (dictionary), 10 bytes uncompressed and compressed, field 7: 3 values, PLAIN.
        let header = [
            0x15, 0x04, 0x15, 0x14, 0x15, 0x14, 0x4c, 0x15, 0x06, 0x15, 0x00, 0x00, 0x00,
        ];
        assert_eq!(
            dictionary_page(&header),
            Ok(Some(DictionaryPage {
                uncompressed_size: 10,
                compressed_size: 10,
                values: 3
            }))
        );
        // A data page (type 0) is not a dictionary page.
        let data = [
            0x15, 0x00, 0x15, 0x14, 0x15, 0x14, 0x2c, 0x15, 0x06, 0x15, 0x00, 0x15, 0x00, 0x15,
            0x00, 0x00, 0x00,
        ];
        assert_eq!(dictionary_page(&data), Ok(None));
        // Cut short, it asks for more bytes; without its required sizes, it is corrupt.
        assert_eq!(dictionary_page(&header[..8]), Err(None));
        assert!(matches!(
            dictionary_page(&[0x15, 0x04, 0x00]),
            Err(Some(e)) if e.contains("uncompressed_page_size")
        ));
    }
}
