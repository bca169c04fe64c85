// Validate a JSON file against a JSON Schema (draft-07) with ajv; test-only (tests/e2e).
//   node validate.js NODE_MODULES SCHEMA DATA
'use strict';
const path = require('path');
const fs = require('fs');
const Ajv = require(path.resolve(process.argv[2], 'ajv'));
const schema = JSON.parse(fs.readFileSync(process.argv[3], 'utf8'));
const data = JSON.parse(fs.readFileSync(process.argv[4], 'utf8'));
const ajv = new Ajv({ allErrors: true, strict: false });
const validate = ajv.compile(schema);
if (!validate(data)) {
	for (const e of validate.errors.slice(0, 20))
		console.error(`${process.argv[4]}: ${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`);
	process.exit(1);
}
console.log(`${path.basename(process.argv[4])}: valid against ${path.basename(process.argv[3])}`);
