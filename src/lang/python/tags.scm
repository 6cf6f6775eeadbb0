; Python definitions. Methods are functions nested in a class (the analysis reclassifies them).
(class_definition name: (identifier) @name) @definition.class
(function_definition name: (identifier) @name) @definition.function

; Module-level and class-level assignments: variables, or constants when UPPER_CASE.
(module (expression_statement (assignment left: (identifier) @name) @definition.variable))
(class_definition
  body: (block (expression_statement (assignment left: (identifier) @name) @definition.property)))
