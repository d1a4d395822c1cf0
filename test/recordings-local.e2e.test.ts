// Recordings and media end to end with the local storage driver (see support/media-suite.ts).
import { mediaSuite } from "./support/media-suite";

mediaSuite("local");
