// Types for the Khronos glTF validator's JS build (the package ships none): the part the tests use.
declare module "gltf-validator" {
  interface ValidationMessage {
    code: string;
    message: string;
    severity: number;
    pointer?: string;
  }
  interface ValidationReport {
    issues: { numErrors: number; numWarnings: number; messages: ValidationMessage[] };
  }
  const validator: {
    validateBytes(data: Uint8Array, options?: { maxIssues?: number }): Promise<ValidationReport>;
  };
  export default validator;
}
