; Rust definitions. `impl` blocks only give their members a scope.
(impl_item type: (_) @name) @container
(mod_item name: (identifier) @name) @definition.module
(function_item name: (identifier) @name) @definition.function
(function_signature_item name: (identifier) @name) @definition.function
(struct_item name: (type_identifier) @name) @definition.struct
(union_item name: (type_identifier) @name) @definition.struct
(enum_item name: (type_identifier) @name) @definition.enum
(trait_item name: (type_identifier) @name) @definition.trait
(type_item name: (type_identifier) @name) @definition.type
(const_item name: (identifier) @name) @definition.constant
(static_item name: (identifier) @name) @definition.variable
(macro_definition name: (identifier) @name) @definition.macro
(field_declaration name: (field_identifier) @name) @definition.property
(enum_variant name: (identifier) @name) @definition.constant
