export * from "./market";
export * from "./control";
