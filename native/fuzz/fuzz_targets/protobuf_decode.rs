//! Arbitrary bytes through the protobuf decoder, for a proto3 message with every field shape
//! (scalars of each wire type, an enum, a nested and self-recursive message, packed and string
//! lists, a map, a list of messages): an error or rows, never a panic. The first byte chooses
//! `read-default-values`.
#![no_main]

use std::sync::{Arc, OnceLock};

use arrow::datatypes::{DataType, Field, Fields, Schema, SchemaRef};
use libfuzzer_sys::fuzz_target;
use prost_reflect::prost::Message;
use prost_reflect::prost_types::field_descriptor_proto::{Label, Type};
use prost_reflect::prost_types::{
    DescriptorProto, EnumDescriptorProto, EnumValueDescriptorProto, FieldDescriptorProto,
    FileDescriptorProto, FileDescriptorSet, MessageOptions,
};
use streamfusion_formats::options::FormatOptions;
use streamfusion_formats::{MessageSchema, create_decoder_with};

mod common;

fn field(
    name: &str,
    number: i32,
    kind: Type,
    label: Label,
    type_name: &str,
) -> FieldDescriptorProto {
    FieldDescriptorProto {
        name: Some(name.into()),
        number: Some(number),
        r#type: Some(kind as i32),
        label: Some(label as i32),
        type_name: (!type_name.is_empty()).then(|| type_name.into()),
        json_name: Some(name.into()),
        ..Default::default()
    }
}

fn message(name: &str, field: Vec<FieldDescriptorProto>) -> DescriptorProto {
    DescriptorProto {
        name: Some(name.into()),
        field,
        ..Default::default()
    }
}

/// `fz.Msg` and the types it uses, as a serialized `FileDescriptorSet`.
fn descriptors() -> Vec<u8> {
    use Label::{Optional as One, Repeated as Many};
    let mut entry = message(
        "MEntry",
        vec![
            field("key", 1, Type::String, One, ""),
            field("value", 2, Type::Int32, One, ""),
        ],
    );
    entry.options = Some(MessageOptions {
        map_entry: Some(true),
        ..Default::default()
    });
    let mut msg = message(
        "Msg",
        vec![
            field("i32", 1, Type::Int32, One, ""),
            field("s64", 2, Type::Sint64, One, ""),
            field("f32", 3, Type::Fixed32, One, ""),
            field("db", 4, Type::Double, One, ""),
            field("bo", 5, Type::Bool, One, ""),
            field("st", 6, Type::String, One, ""),
            field("by", 7, Type::Bytes, One, ""),
            field("color", 8, Type::Enum, One, ".fz.Color"),
            field("inner", 9, Type::Message, One, ".fz.Inner"),
            field("ri", 10, Type::Int32, Many, ""),
            field("rs", 11, Type::String, Many, ""),
            field("m", 12, Type::Message, Many, ".fz.Msg.MEntry"),
            field("rinner", 13, Type::Message, Many, ".fz.Inner"),
            field("fl", 14, Type::Float, One, ""),
        ],
    );
    msg.nested_type.push(entry);
    let file = FileDescriptorProto {
        name: Some("fz.proto".into()),
        package: Some("fz".into()),
        syntax: Some("proto3".into()),
        message_type: vec![
            message(
                "Inner",
                vec![
                    field("a", 1, Type::Int32, One, ""),
                    field("b", 2, Type::String, One, ""),
                    field("child", 3, Type::Message, One, ".fz.Inner"),
                ],
            ),
            msg,
        ],
        enum_type: vec![EnumDescriptorProto {
            name: Some("Color".into()),
            value: ["RED", "GREEN"]
                .iter()
                .zip(0..)
                .map(|(name, number)| EnumValueDescriptorProto {
                    name: Some((*name).into()),
                    number: Some(number),
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        }],
        ..Default::default()
    };
    FileDescriptorSet { file: vec![file] }.encode_to_vec()
}

fn list(element: DataType) -> DataType {
    DataType::List(Arc::new(Field::new("element", element, true)))
}

/// The table: every field of `fz.Msg`, the inner message two levels deep.
fn schema() -> SchemaRef {
    let inner = |child: Option<DataType>| {
        let mut fields = vec![
            Field::new("a", DataType::Int32, true),
            Field::new("b", DataType::Utf8, true),
        ];
        fields.extend(child.map(|c| Field::new("child", c, true)));
        DataType::Struct(Fields::from(fields))
    };
    Arc::new(Schema::new(vec![
        Field::new("i32", DataType::Int32, true),
        Field::new("s64", DataType::Int64, true),
        Field::new("f32", DataType::Int32, true),
        Field::new("db", DataType::Float64, true),
        Field::new("bo", DataType::Boolean, true),
        Field::new("st", DataType::Utf8, true),
        Field::new("by", DataType::Binary, true),
        Field::new("color", DataType::Utf8, true),
        Field::new("inner", inner(Some(inner(None))), true),
        Field::new("ri", list(DataType::Int32), true),
        Field::new("rs", list(DataType::Utf8), true),
        Field::new("m", common::string_int_map(), true),
        Field::new("rinner", list(inner(None)), true),
        Field::new("fl", DataType::Float32, true),
    ]))
}

struct Setup {
    descriptors: Vec<u8>,
    schema: SchemaRef,
}

static SETUP: OnceLock<Setup> = OnceLock::new();

fuzz_target!(|data: &[u8]| {
    let setup = SETUP.get_or_init(|| Setup {
        descriptors: descriptors(),
        schema: schema(),
    });
    let Some((&first, message)) = data.split_first() else {
        return;
    };
    let options = FormatOptions::new(
        "protobuf",
        [(
            "read-default-values".to_string(),
            (first & 1 == 1).to_string(),
        )],
    );
    let decoder = create_decoder_with(
        "protobuf",
        setup.schema.clone(),
        setup.schema.clone(),
        &options,
        MessageSchema {
            descriptors: Some(&setup.descriptors),
            message: Some("fz.Msg"),
        },
    )
    .expect("the fuzz table fits its message");
    common::fuzz_with(decoder, message);
});
