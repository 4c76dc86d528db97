#!/usr/bin/env node
// A committed entry point, so npm can link the `syntic` bin before the TypeScript build exists.
import '../dist/main.js'
