const t={B:"BTG",U:"URB",S:"STD",G:"GRP"};function n(r){if(!r)return"fără companie";const e=`${t[r]} (${r})`;return r==="G"?`${e} · grup`:e}export{n as c};
