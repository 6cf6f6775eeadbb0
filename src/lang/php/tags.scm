; PHP definitions. A statement-form namespace scopes the rest of the file.
(namespace_definition name: (namespace_name) @name) @definition.namespace
(class_declaration name: (name) @name) @definition.class
(interface_declaration name: (name) @name) @definition.interface
(trait_declaration name: (name) @name) @definition.trait
(enum_declaration name: (name) @name) @definition.enum
(function_definition name: (name) @name) @definition.function
(method_declaration name: (name) @name) @definition.method
(property_declaration (property_element (variable_name (name) @name))) @definition.property
(property_promotion_parameter name: (variable_name (name) @name)) @definition.property
(const_declaration (const_element (name) @name)) @definition.constant
(enum_case name: (name) @name) @definition.constant
