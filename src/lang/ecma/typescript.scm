; TypeScript and TSX definitions.
(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(function_signature name: (identifier) @name) @definition.function
(class_declaration name: (type_identifier) @name) @definition.class
(abstract_class_declaration name: (type_identifier) @name) @definition.class
(method_definition name: (_) @name) @definition.method
(abstract_method_signature name: (_) @name) @definition.method
(method_signature name: (_) @name) @definition.method
(interface_declaration name: (type_identifier) @name) @definition.interface
(type_alias_declaration name: (type_identifier) @name) @definition.type
(enum_declaration name: (identifier) @name) @definition.enum
(internal_module name: (_) @name) @definition.module
(public_field_definition name: (_) @name) @definition.property
(property_signature name: (_) @name) @definition.property

; Functions bound to names: `const useCart = () => {…}`, `const f = function () {…}`.
(variable_declarator
  name: (identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.function

; Other module-level bindings (exported or not).
(program (lexical_declaration (variable_declarator name: (identifier) @name) @definition.variable))
(program (variable_declaration (variable_declarator name: (identifier) @name) @definition.variable))
(program (export_statement (lexical_declaration (variable_declarator name: (identifier) @name) @definition.variable)))

; Functions an object literal holds under a name, when the object is bound to a name, assigned,
; exported or held by another such object (`const api = { get: function () {…}, save: async () =>
; {…} }`, `module.exports = { … }`, Vue's `methods: { … }`): methods, scoped by the name the object
; is bound to. An object passed as an argument (`$.ajax({ success: function … })`) defines nothing.
(variable_declarator
  value: (object
    (pair
      key: (property_identifier) @name
      value: [(arrow_function) (function_expression) (generator_function)]) @definition.method))
(assignment_expression
  right: (object
    (pair
      key: (property_identifier) @name
      value: [(arrow_function) (function_expression) (generator_function)]) @definition.method))
(export_statement
  value: (object
    (pair
      key: (property_identifier) @name
      value: [(arrow_function) (function_expression) (generator_function)]) @definition.method))
(pair
  value: (object
    (pair
      key: (property_identifier) @name
      value: [(arrow_function) (function_expression) (generator_function)]) @definition.method))

; An object literal bound to a name anywhere (a module pattern's `var Dashboard = { … }` inside
; its wrapping function) when it holds functions: the scope of its methods.
(variable_declarator
  name: (identifier) @name
  value: (object
    [(pair
      value: [(arrow_function) (function_expression) (generator_function)])
     (method_definition)])) @definition.variable

; A constructor function's members, as the class they make: `Widget.prototype.render = function …`
; and `Widget.prototype = { show: function … }` are methods of `Widget`; `Widget.create =
; function …` is a function in `Widget` (not so for `exports.f = …`, which names a module's export).
(assignment_expression
  left: (member_expression
    object: (member_expression
      object: (identifier) @scope
      property: (property_identifier) @_prototype)
    property: (property_identifier) @name)
  right: [(arrow_function) (function_expression) (generator_function)]
  (#eq? @_prototype "prototype")) @definition.method
(assignment_expression
  left: (member_expression
    object: (identifier) @name
    property: (property_identifier) @_prototype)
  right: (object)
  (#eq? @_prototype "prototype")) @container
(assignment_expression
  left: (member_expression
    object: (identifier) @scope
    property: (property_identifier) @name)
  right: [(arrow_function) (function_expression) (generator_function)]
  (#not-eq? @scope "exports")) @definition.function
