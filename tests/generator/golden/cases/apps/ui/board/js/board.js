const s = "</script>";
console.log(s);
