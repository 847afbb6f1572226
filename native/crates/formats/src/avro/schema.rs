//! Avro writer schemas, as a schema registry serves them or a container file's header holds
//! them, parsed into [`AvroSchema`].

use std::collections::HashMap;

use serde_json::Value as Json;

/// A parsed Avro schema.
#[derive(Debug, Clone, PartialEq)]
pub enum AvroSchema {
    Null,
    Boolean,
    Int,
    Long,
    Float,
    Double,
    Bytes,
    String,
    Record(Vec<(String, AvroSchema)>),
    Enum(Vec<String>),
    Array(Box<AvroSchema>),
    Map(Box<AvroSchema>),
    Union(Vec<AvroSchema>),
    Fixed(usize),
}

impl AvroSchema {
    /// Parses an Avro schema in its JSON form. Named types may be referenced after their
    /// definition; recursive types are rejected.
    pub fn parse(text: &str) -> Result<Self, String> {
        let json: Json =
            serde_json::from_str(text).map_err(|e| format!("invalid Avro schema JSON: {e}"))?;
        let mut named = HashMap::new();
        parse(&json, &mut named, None)
    }
}

fn parse(
    json: &Json,
    named: &mut HashMap<String, AvroSchema>,
    namespace: Option<&str>,
) -> Result<AvroSchema, String> {
    match json {
        Json::String(name) => primitive(name)
            .or_else(|| named.get(name).cloned())
            .or_else(|| namespace.and_then(|ns| named.get(&format!("{ns}.{name}")).cloned()))
            .ok_or_else(|| format!("unknown Avro type '{name}'")),
        Json::Array(branches) => Ok(AvroSchema::Union(
            branches
                .iter()
                .map(|b| parse(b, named, namespace))
                .collect::<Result<_, _>>()?,
        )),
        Json::Object(object) => {
            let kind = object
                .get("type")
                .ok_or("an Avro schema object without 'type'")?;
            let Json::String(kind) = kind else {
                return parse(kind, named, namespace);
            };
            let own_namespace = object.get("namespace").and_then(Json::as_str).or(namespace);
            let full_name = |object: &serde_json::Map<String, Json>| {
                object.get("name").and_then(Json::as_str).map(|n| {
                    if n.contains('.') {
                        n.to_string()
                    } else {
                        own_namespace.map_or(n.to_string(), |ns| format!("{ns}.{n}"))
                    }
                })
            };
            let schema = match kind.as_str() {
                "record" | "error" => {
                    let name = full_name(object);
                    let fields = object
                        .get("fields")
                        .and_then(Json::as_array)
                        .ok_or("an Avro record without 'fields'")?;
                    let mut parsed = Vec::with_capacity(fields.len());
                    for field in fields {
                        let field_name = field
                            .get("name")
                            .and_then(Json::as_str)
                            .ok_or("an Avro field without 'name'")?;
                        let field_type = field.get("type").ok_or("an Avro field without 'type'")?;
                        parsed.push((
                            field_name.to_string(),
                            parse(field_type, named, own_namespace)?,
                        ));
                    }
                    let record = AvroSchema::Record(parsed);
                    if let Some(name) = name {
                        let short = name.rsplit('.').next().unwrap_or(&name).to_string();
                        named.insert(short, record.clone());
                        named.insert(name, record.clone());
                    }
                    record
                }
                "enum" => {
                    let symbols = object
                        .get("symbols")
                        .and_then(Json::as_array)
                        .ok_or("an Avro enum without 'symbols'")?
                        .iter()
                        .map(|s| {
                            s.as_str()
                                .map(str::to_string)
                                .ok_or("a non-string enum symbol")
                        })
                        .collect::<Result<Vec<_>, _>>()?;
                    let schema = AvroSchema::Enum(symbols);
                    if let Some(name) = full_name(object) {
                        named.insert(
                            name.rsplit('.').next().unwrap_or(&name).to_string(),
                            schema.clone(),
                        );
                        named.insert(name, schema.clone());
                    }
                    schema
                }
                "fixed" => {
                    let size = object
                        .get("size")
                        .and_then(Json::as_u64)
                        .ok_or("an Avro fixed without 'size'")?;
                    let schema = AvroSchema::Fixed(size as usize);
                    if let Some(name) = full_name(object) {
                        named.insert(
                            name.rsplit('.').next().unwrap_or(&name).to_string(),
                            schema.clone(),
                        );
                        named.insert(name, schema.clone());
                    }
                    schema
                }
                "array" => AvroSchema::Array(Box::new(parse(
                    object.get("items").ok_or("an Avro array without 'items'")?,
                    named,
                    own_namespace,
                )?)),
                "map" => AvroSchema::Map(Box::new(parse(
                    object.get("values").ok_or("an Avro map without 'values'")?,
                    named,
                    own_namespace,
                )?)),
                // A primitive with attributes (logical types keep their underlying encoding).
                other => primitive(other).ok_or_else(|| format!("unknown Avro type '{other}'"))?,
            };
            Ok(schema)
        }
        other => Err(format!("not an Avro schema: {other}")),
    }
}

fn primitive(name: &str) -> Option<AvroSchema> {
    Some(match name {
        "null" => AvroSchema::Null,
        "boolean" => AvroSchema::Boolean,
        "int" => AvroSchema::Int,
        "long" => AvroSchema::Long,
        "float" => AvroSchema::Float,
        "double" => AvroSchema::Double,
        "bytes" => AvroSchema::Bytes,
        "string" => AvroSchema::String,
        _ => return None,
    })
}
