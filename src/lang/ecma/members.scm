; Members of objects and constructor functions, for JavaScript and TypeScript alike. First in
; both languages' queries: where a pattern of the language's own names the same definition (the
; JavaScript `exports.f = …` pattern matches `Widget.create = …` too), the earlier pattern wins.

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

; The same object passed to a call whose result is bound to a name: a tRPC router's procedures
; (`export const polls = router({ make: procedure.mutation(async () => {…}) })`), a store or slice
; made by a factory. The result answers to the name (`polls.make`), and a property whose value is
; a call taking a function (the procedure builder's `.mutation(…)`, `debounce(() => …)`) holds
; that function. A call's object that is not bound (`$.ajax({ success: … })`) still defines nothing.
(variable_declarator
  value: (call_expression
    arguments: (arguments
      (object
        (pair
          key: (property_identifier) @name
          value: [
            (arrow_function) (function_expression) (generator_function)
            (call_expression
              arguments: (arguments
                [(arrow_function) (function_expression) (generator_function)]))
          ]) @definition.method))))

; An object literal bound to a name anywhere (a module pattern's `var Dashboard = { … }` inside
; its wrapping function) when it holds functions: the scope of its methods.
(variable_declarator
  name: (identifier) @name
  value: (object
    [(pair
      value: [(arrow_function) (function_expression) (generator_function)])
     (method_definition)])) @definition.variable
